// canonicalize's constant rules: constants that only broadcast become 0-d, chains of constant
// scalings and shifts fold where exact (every bit kept: checked on values of every
// magnitude) or under fast_math, and a where on a constant condition picks its branch
// (keeping the result's shape and dtype). Each: the graph before, the one expected, the same
// values.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "canon_test_util.h"
#include "compiler/passes/canonicalize.h"
#include "ops/core/apply.h"
#include "ops/elemwise/elemwise.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using test::expect_same_results;
using test::op_names;

constexpr DType f32 = DType::Float32;
constexpr DType f64 = DType::Float64;

test::PassRun canon(const std::vector<Var>& inputs, const std::vector<Var>& outputs, const PassContext& ctx = {}) {
  return test::run_pass(canonicalize, inputs, outputs, ctx);
}

PassContext fast_math() {
  PassContext ctx;
  ctx.config.fast_math = true;
  return ctx;
}

// The graph after the pass, one line a node: "t0 = Elemwise{mul}(0.02, x)".
std::string after(const test::PassRun& r) { return r.after.str(); }

// Both graphs of r give the same bits for one input of `dtype` holding values of every
// magnitude (the exact rules promise the same rounding, not a close result).
void expect_same_bits_over_magnitudes(const test::PassRun& r, DType dtype) {
  std::vector<double> values;
  for (int e = -60; e <= 60; e += 3)
    for (double m : {1.0, -1.0, 1.1, -3.7, 0.3, 7.123456789, 1.0 / 3})
      values.push_back(m * std::ldexp(1.0, e));
  Tensor t = Tensor::from_vector<double>(values, {static_cast<int64_t>(values.size())}).astype(dtype);
  test::GraphEval before({{Var(r.before.inputs()[0]), t}}), opt({{Var(r.after.inputs()[0]), t}});
  for (size_t o = 0; o < r.before.outputs().size(); ++o)
    test::expect_same(opt(Var(r.after.outputs()[o])), before(Var(r.before.outputs()[o])));
}

// --- fold_constants ---

TEST(CanonicalizeConstants, WhatARuleLeavesWithConstantInputsIsFolded) {
  // 0.5 * (2 * c) for a constant c: the chain folds to 1 * c... here built by hand as the
  // rules would leave it, a cast and a negation of constants, evaluated like constant_fold.
  Var x = vector("x", f32);
  Var c = constant(Tensor::from_vector<float>({1, 2, 3}, {3}));
  auto r = canon({x}, {x * -constant(0.25, f32), cast(c, f64) + 1});
  EXPECT_EQ(after(r), "t0 = Elemwise{mul}(x, -0.25)\n");
  EXPECT_EQ(r.after.outputs()[1]->kind(), Variable::Kind::Constant);
  expect_same_results(r, 0.0);
  PassContext ctx;
  ctx.excluded = {"fold_constants"};
  EXPECT_THAT(op_names(canon({x}, {x * -constant(0.25, f32)}, ctx).after), ElementsAre("Elemwise{neg}", "Elemwise{mul}"));
}

// --- scalar_constant_operand ---

TEST(CanonicalizeConstants, AConstantThatOnlyBroadcastsBecomes0d) {
  Var x = vector("x"), m = matrix("m"), s = tensor("s", f32, {3});
  Var half = constant(Tensor::full(f32, {1}, 0.5));
  Var threes = constant(Tensor::full(f32, {1, 1}, 3.0));
  Var twos = constant(Tensor::full(f32, {3}, 2.0));  // s's known length: widens nothing
  auto r = canon({x, m, s}, {x * half, threes + m, s - twos});
  EXPECT_EQ(after(r), "t0 = Elemwise{mul}(x, 0.5)\nt1 = Elemwise{add}(3.0, m)\nt2 = Elemwise{sub}(s, 2.0)\n");
  for (Node* n : r.after.toposort())
    for (const VarPtr& in : n->inputs())
      if (in->kind() == Variable::Kind::Constant) {
        EXPECT_EQ(in->type().ndim(), 0);
      }
  expect_same_results(r, 0.0, 1);
  expect_same_results(r, 0.0, 3);
}

TEST(CanonicalizeConstants, AConstantThatShapesTheResultStays) {
  Var s = scalar("s"), x = vector("x");
  // s * [0.5] is a vector (the constant gives the rank); x * [2, 2, 2] has length 3 when x is
  // 1 long; x * [1, 2] has two values.
  auto r = canon({s, x}, {s * constant(Tensor::full(f32, {1}, 0.5)), x * constant(Tensor::full(f32, {3}, 2.0)),
                          x * constant(Tensor::from_vector<float>({1, 2}, {2}))});
  EXPECT_FALSE(r.changed);
  expect_same_results(r, 0.0, 1);
}

// --- constant_chain ---

TEST(CanonicalizeConstants, ScalingsByPowersOfTwoFoldExactly) {
  Var x = vector("x", f64);
  // 0.5 * (2x) is x; -(3x) is -3x; 0.01 * (2x) is 0.02x; (x / 4) * 3 is 0.75x; 8 * -(x / 8) is -x.
  auto r = canon({x}, {0.5 * (2 * x), -(3 * x), 0.01 * (2 * x), (x / 4) * 3, 8 * -(x / 8)});
  EXPECT_EQ(after(r), "t0 = Elemwise{mul}(-3.0, x)\nt1 = Elemwise{mul}(0.02, x)\nt2 = Elemwise{mul}(0.75, x)\n"
                      "t3 = Elemwise{neg}(x)\n");
  EXPECT_EQ(r.after.outputs()[0].get(), r.after.inputs()[0].get());
  expect_same_bits_over_magnitudes(r, f64);
}

TEST(CanonicalizeConstants, Float32ChainsFoldInFloat32) {
  Var x = vector("x", f32);
  Var c = constant(0.1, f32);
  auto r = canon({x}, {c * (x * constant(4.0, f32)), constant(-0.5, f32) * (x / constant(0.25, f32))});
  EXPECT_EQ(after(r), "t0 = Elemwise{mul}(0.4, x)\nt1 = Elemwise{mul}(-2.0, x)\n");
  EXPECT_EQ(r.after.outputs()[0]->owner()->inputs()[0]->type().dtype, f32);
  expect_same_bits_over_magnitudes(r, f32);
}

TEST(CanonicalizeConstants, InexactChainsStayUnlessFastMath) {
  // The tutorial's L2 step, w - 0.01 * (0.01 * (2w)): 0.01 * 0.02 rounds, so the two products
  // round differently from one; exact rules fold only the 2.
  Var w = vector("w", f32);
  Var chain = constant(-0.01, f32) * (constant(0.01, f32) * (constant(2.0, f32) * w));
  Var third = (w / constant(3.0, f32)) * constant(2.0, f32);  // 1/3 is not exact
  auto exact = canon({w}, {chain, third});
  EXPECT_EQ(after(exact), "t0 = Elemwise{mul}(0.02, w)\nt1 = Elemwise{mul}(-0.01, t0)\n"
                          "t2 = Elemwise{true_div}(w, 3.0)\nt3 = Elemwise{mul}(t2, 2.0)\n");
  expect_same_bits_over_magnitudes(exact, f32);

  auto fast = canon({w}, {chain, third}, fast_math());
  ASSERT_THAT(op_names(fast.after), ElementsAre("Elemwise{mul}", "Elemwise{mul}"));
  for (const VarPtr& o : fast.after.outputs()) {
    const Node* n = o->owner();
    EXPECT_EQ(n->inputs()[1].get(), fast.after.inputs()[0].get()) << after(fast);
    ASSERT_EQ(n->inputs()[0]->kind(), Variable::Kind::Constant);
  }
  EXPECT_FLOAT_EQ(fast.after.outputs()[0]->owner()->inputs()[0]->constant_value().at({}), -0.0002f);
  EXPECT_FLOAT_EQ(fast.after.outputs()[1]->owner()->inputs()[0]->constant_value().at({}), 2.0f / 3);
  expect_same_results(fast, 1e-6);
}

TEST(CanonicalizeConstants, IntegerChainsFoldWhenTheConstantFits) {
  Var i = vector("i", DType::Int32);
  Var big = constant(65536.0, DType::Int32);
  auto r = canon({i}, {(i * 3) * 5, (i + 2) - 5, -(i * 7), (i + 1) - 1, big * (i * big)});
  // 65536 * 65536 does not fit an int32: the last chain stays.
  EXPECT_EQ(after(r), "t0 = Elemwise{mul}(15, i)\nt1 = Elemwise{add}(i, -3)\nt2 = Elemwise{mul}(-7, i)\n"
                      "t3 = Elemwise{mul}(i, 65536)\nt4 = Elemwise{mul}(65536, t3)\n");
  EXPECT_EQ(r.after.outputs()[3].get(), r.after.inputs()[0].get());
  expect_same_results(r, 0.0);
}

TEST(CanonicalizeConstants, FloatShiftsFoldOnlyUnderFastMath) {
  Var x = vector("x", f64);
  auto exact = canon({x}, {(x + 0.1) + 0.2, (x - 1) + 1});
  EXPECT_FALSE(exact.changed);  // (x + 0.1) + 0.2 is not x + 0.3 in floating point
  auto fast = canon({x}, {(x + 0.1) + 0.2, (x - 1) + 1}, fast_math());
  EXPECT_EQ(after(fast), "t0 = Elemwise{add}(x, 0.30000000000000004)\n");
  EXPECT_EQ(fast.after.outputs()[1].get(), fast.after.inputs()[0].get());
  expect_same_results(fast, 1e-12);
}

TEST(CanonicalizeConstants, ChainsOverMixedDtypesStay) {
  // A float32 x scaled by float64 constants: the inner product is a float64 of a float32
  // operand; folding would change which value is rounded to what.
  Var x = vector("x", f32);
  auto r = canon({x}, {constant(0.5, f64) * (constant(2.0, f64) * x), constant(2.0, f32) * cast(x * 3, f64)});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{mul}", "Elemwise{mul}", "Elemwise{mul}",
                                             "Elemwise{Cast{float64}}", "Elemwise{mul}"));
  expect_same_results(r, 0.0);
}

// --- where_constant_condition ---

TEST(CanonicalizeConstants, WhereOnAConstantConditionIsItsBranch) {
  Var x = tensor("x", f32, {3, 4}), y = tensor("y", f32, {3, 4}), z = tensor("z", f64, {3, 4});
  Var all_true = constant(Tensor::full(DType::Bool, {3, 4}, 1.0));
  Var all_false = constant(Tensor::full(DType::Bool, {4}, 0.0));
  Var nonzero = constant(Tensor::from_vector<float>({2, -1, 0.5, 7}, {4}));  // every element true
  auto r = canon({x, y, z}, {where(true, x, y), where(all_true, x, y), where(all_false, x, y),
                             where(nonzero, y, x), where(false, z, x), where(true, x, z)});
  // where(False, z (f64), x (f32)) and where(True, x, z) are x as float64.
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{Cast{float64}}", "Elemwise{Cast{float64}}"));
  EXPECT_EQ(r.after.outputs()[0].get(), r.after.inputs()[0].get());
  EXPECT_EQ(r.after.outputs()[1].get(), r.after.inputs()[0].get());
  EXPECT_EQ(r.after.outputs()[2].get(), r.after.inputs()[1].get());
  EXPECT_EQ(r.after.outputs()[3].get(), r.after.inputs()[1].get());
  EXPECT_EQ(r.after.outputs()[4]->owner()->inputs()[0].get(), r.after.inputs()[0].get());
  EXPECT_EQ(r.after.outputs()[5]->owner()->inputs()[0].get(), r.after.inputs()[0].get());
  expect_same_results(r, 0.0);
}

TEST(CanonicalizeConstants, WhereOnAConstantConditionWithProvablyEqualUnknownShapes) {
  // Unknown dims that shape equivalence proves equal: exp(v) and v * 2 are both v's shape.
  Var v = vector("v", f64), m = matrix("m", f64);
  auto r = canon({v, m}, {where(false, m, exp(m) * m), where(true, exp(v), v * 2)});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{exp}", "Elemwise{mul}", "Elemwise{exp}"));
  expect_same_results(r, 0.0);
}

TEST(CanonicalizeConstants, WhereThatBroadcastsItsBranchStays) {
  // where(True, v, m) is v broadcast to m's shape (v may be 1 long, m's rows are unknown): a
  // fill, which specialize makes of unremovable fills too, so it stays a where.
  Var v = vector("v", f32), m = matrix("m", f32), x = tensor("x", f32, {4}), y = tensor("y", f32, {4});
  Var mixed = constant(Tensor::from_vector<float>({1, 0, 1, 1}, {4}).astype(DType::Bool));
  Var wide = constant(Tensor::full(DType::Bool, {3, 4}, 1.0));  // makes the result (3, 4)
  auto r = canon({v, m, x, y}, {where(true, v, m), where(mixed, x, y), where(wide, x, y)});
  EXPECT_FALSE(r.changed);
  expect_same_results(r, 0.0, 1);
  expect_same_results(r, 0.0, 4);
}

}  // namespace
}  // namespace tgc
