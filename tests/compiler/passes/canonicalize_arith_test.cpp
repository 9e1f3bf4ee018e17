// canonicalize's arithmetic rules: each rewrites what its comment says (structure), keeps
// the results (reference evaluation on random inputs), and leaves alone what it must not
// touch (a "1" that broadcasts x up, a dtype the rewrite would change).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "canon_test_util.h"
#include "compiler/passes/canonicalize.h"
#include "ops/core/apply.h"
#include "ops/elemwise/elemwise.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using test::expect_same_results;
using test::op_names;

test::PassRun canon(const std::vector<Var>& inputs, const std::vector<Var>& outputs) {
  return test::run_pass(canonicalize, inputs, outputs);
}

// Every output of the optimized graph is its input: the rule left no node.
void expect_outputs_are_inputs(const test::PassRun& r) {
  EXPECT_THAT(op_names(r.after), IsEmpty());
  for (const VarPtr& o : r.after.outputs()) EXPECT_EQ(o.get(), r.after.inputs()[0].get());
}

TEST(CanonicalizeArith, MulByOneOnEitherSide) {
  Var x = matrix("x");
  auto r = canon({x}, {x * 1, 1 * x, x * ones({1, 1}), x * constant(Tensor::full(DType::Float32, {1, 1}, 1.0))});
  EXPECT_TRUE(r.changed);
  expect_outputs_are_inputs(r);
  expect_same_results(r);
}

TEST(CanonicalizeArith, MulByOneOfTheSameShapeAsAStaticX) {
  Var x = tensor("x", DType::Float32, {3, 4});
  auto r = canon({x}, {x * ones({3, 4}), x * ones({4})});
  expect_outputs_are_inputs(r);
  expect_same_results(r);
}

TEST(CanonicalizeArith, MulByOneThatBroadcastsXUpStays) {
  Var x = vector("x");
  Var n = tensor("n", DType::Float32, {4});
  // x * ones(3, 4) is a matrix; a vector x of unknown length may be 1 long, so x * ones(4)
  // may be longer than x.
  // (The ones are folded into constants by fold_constants; each product keeps its "1".)
  auto r = canon({x, n}, {x * ones({3, 4}), x * ones({4}), n * ones({3, 4})});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{mul}", "Elemwise{mul}", "Elemwise{mul}"));
  for (const VarPtr& o : r.after.outputs()) EXPECT_EQ(o->owner()->inputs()[1]->kind(), Variable::Kind::Constant);
  expect_same_results(r, 1e-6, 1);
  expect_same_results(r, 1e-6, 4);
}

TEST(CanonicalizeArith, MulByAFloatOneKeepsTheFloatDtypeOfAnIntegerX) {
  Var x = vector("x", DType::Int32);
  Var y = x * constant(1.0, DType::Float32);
  ASSERT_EQ(y.dtype(), DType::Float32);
  auto r = canon({x}, {y});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{Cast{float32}}"));
  EXPECT_NE(r.after.outputs()[0].get(), r.after.inputs()[0].get());
  expect_same_results(r);
}

TEST(CanonicalizeArith, MulByOtherConstantsStays) {
  Var x = matrix("x");
  auto r = canon({x}, {x * 2, x * constant(Tensor::from_vector<float>({1, 2}, {1, 2}))});
  EXPECT_FALSE(r.changed);
}

TEST(CanonicalizeArith, AddZeroAndSubZero) {
  Var x = matrix("x");
  auto r = canon({x}, {x + 0, 0 + x, x - 0, x + zeros({1, 1})});
  expect_outputs_are_inputs(r);
  expect_same_results(r);
}

TEST(CanonicalizeArith, ZeroMinusXStays) {
  Var x = matrix("x");
  auto r = canon({x}, {0 - x});
  EXPECT_FALSE(r.changed);
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{sub}"));
}

TEST(CanonicalizeArith, BoolPlusZeroBecomesACastToTheSumsDtype) {
  Var m = vector("m", DType::Bool);
  Var y = m + 0;
  auto r = canon({m}, {y});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{Cast{" + std::string(dtype_name(y.dtype())) + "}}"));
  expect_same_results(r);
}

TEST(CanonicalizeArith, SubSelfIsZerosLikeX) {
  Var x = matrix("x"), y = matrix("y");
  auto r = canon({x, y}, {x - x, x - y});
  EXPECT_THAT(op_names(r.after), ElementsAre("Fill", "Elemwise{sub}"));
  expect_same_results(r);
}

TEST(CanonicalizeArith, SubSelfOfAStaticShapeIsAConstant) {
  // zeros_like(x) -> alloc(0, (2, 3)) (fill_to_alloc), folded as constant_fold would.
  Var x = tensor("x", DType::Int32, {2, 3});
  auto r = canon({x}, {x - x});
  EXPECT_THAT(op_names(r.after), IsEmpty());
  EXPECT_EQ(r.after.outputs()[0]->kind(), Variable::Kind::Constant);
  expect_same_results(r);
}

TEST(CanonicalizeArith, NegNeg) {
  Var x = matrix("x");
  auto r = canon({x}, {-(-x), -x});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{neg}"));
  EXPECT_EQ(r.after.outputs()[0].get(), r.after.inputs()[0].get());
  expect_same_results(r);
}

TEST(CanonicalizeArith, DivByOne) {
  Var x = matrix("x");
  Var i = vector("i", DType::Int32);
  auto r = canon({x, i}, {x / 1, 1 / x, i / 1});
  // int32 / 1 is a float: the cast keeps it one.
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{true_div}", "Elemwise{Cast{float32}}"));
  EXPECT_EQ(r.after.outputs()[0].get(), r.after.inputs()[0].get());
  expect_same_results(r);
}

TEST(CanonicalizeArith, PowOne) {
  Var x = matrix("x");
  auto r = canon({x}, {pow(x, 1)});
  expect_outputs_are_inputs(r);
  expect_same_results(r);
}

TEST(CanonicalizeArith, PowTwoIsSquare) {
  Var x = matrix("x");
  Var i = vector("i", DType::Int32);
  auto r = canon({x, i}, {pow(x, 2), pow(i, 2)});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{square}", "Elemwise{square}"));
  expect_same_results(r);
}

TEST(CanonicalizeArith, PowHalfIsSqrt) {
  Var x = matrix("x");
  Var i = vector("i", DType::Int32);
  auto r = canon({x, i}, {pow(x, 0.5), pow(i, 0.5)});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{sqrt}", "Elemwise{Cast{float32}}", "Elemwise{sqrt}"));
  expect_same_results(r);
}

TEST(CanonicalizeArith, PowMinusOneIsAReciprocalForFloatsOnly) {
  Var x = matrix("x");
  Var i = vector("i", DType::Int32);
  // An integer to a negative power is an error when the function runs: it stays one.
  auto r = canon({x, i}, {pow(x, -1), pow(i, -1)});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{true_div}", "Elemwise{pow}"));
  test::PassRun floats = canon({x}, {pow(x, -1)});
  expect_same_results(floats);
}

TEST(CanonicalizeArith, PowOfAnExponentThatBroadcastsXUpStays) {
  Var x = vector("x");
  auto r = canon({x}, {pow(x, constant(Tensor::full(DType::Float32, {2, 1}, 2.0)))});
  EXPECT_FALSE(r.changed);
}

TEST(CanonicalizeArith, ExpOfLogAndLogOfExp) {
  Var x = matrix("x");
  auto r = canon({x}, {exp(log(x)), log(exp(x))});
  expect_outputs_are_inputs(r);
  expect_same_results(r);
}

TEST(CanonicalizeArith, ExpOfLogKeepsALogThatIsReadElsewhere) {
  Var x = matrix("x");
  Var l = log(x);
  auto r = canon({x}, {exp(l) + l});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{log}", "Elemwise{add}"));
  expect_same_results(r);
}

TEST(CanonicalizeArith, ExpOfLogOfAnIntegerIsItsFloatCast) {
  Var i = vector("i", DType::Int32);
  auto r = canon({i}, {exp(log(i))});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{Cast{float32}}"));
  expect_same_results(r);
}

TEST(CanonicalizeArith, UselessCast) {
  Var x = matrix("x");
  // The API's cast() returns x itself for its own dtype: build the node directly.
  Var same(apply1(std::make_shared<Elemwise>(ScalarOpKind::Cast, DType::Float32), {x.ptr()}));
  auto r = canon({x}, {same, cast(x, DType::Float64)});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{Cast{float64}}"));
  EXPECT_EQ(r.after.outputs()[0].get(), r.after.inputs()[0].get());
  expect_same_results(r);
}

TEST(CanonicalizeArith, RulesCascadeToAFixedPoint) {
  Var x = matrix("x");
  // ((x * 1) + 0) ** 1 / 1 -> x, then -(-(x)) -> x.
  auto r = canon({x}, {-(-(pow((x * 1) + 0, 1) / 1))});
  expect_outputs_are_inputs(r);
  expect_same_results(r);
}

}  // namespace
}  // namespace tgc
