// canonicalize's fill sinking: a fill or alloc moves past the unary elemwise ops and
// DimShuffles reading it, and a fill of a fill drops the inner like when it adds nothing, so
// the gradients' broadcasts (mean's 1/n under a negation, sum's under a DimShuffle{0,x})
// reach the product that broadcasts anyway and disappear there. Each: before, expected,
// the same values.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "canon_test_util.h"
#include "compiler/passes/canonicalize.h"
#include "compiler/passes/constant_fold.h"
#include "ops/alloc/alloc.h"
#include "ops/core/apply.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using test::expect_same_results;
using test::op_names;

constexpr DType f64 = DType::Float64;

test::PassRun canon(const std::vector<Var>& inputs, const std::vector<Var>& outputs, const PassContext& ctx = {}) {
  return test::run_pass(canonicalize, inputs, outputs, ctx);
}

PassContext excluding(std::initializer_list<std::string> names) {
  PassContext ctx;
  for (const std::string& n : names) ctx.excluded.insert(n);
  return ctx;
}

TEST(CanonicalizeFillSink, AFillUnderANegationReachesTheProductThatBroadcastsIt) {
  // -fill(m, s) * m: the negation hid the fill from fill_into_elemwise; sunk, the product's
  // other operand gives the shape, and the fill goes.
  Var m = matrix("m", f64), s = scalar("s", f64);
  std::vector<Var> outs = {-fill(m, s) * m, exp(fill(m, s)) + m};
  auto r = canon({m, s}, outs);
  EXPECT_EQ(r.after.str(), "t0 = Elemwise{neg}(s)\nt1 = Elemwise{mul}(t0, m)\nt2 = Elemwise{exp}(s)\n"
                           "t3 = Elemwise{add}(t2, m)\n");
  expect_same_results(r, 0.0);
  // Without the sinking, the fills stay.
  auto kept = canon({m, s}, outs, excluding({"fill_sink"}));
  const std::vector<std::string> names = op_names(kept.after);
  EXPECT_EQ(std::count(names.begin(), names.end(), "Fill"), 2) << kept.after.str();
}

TEST(CanonicalizeFillSink, ASharedFillSinksOnlyWhenItsValueIsAConstant) {
  // fill(m, 1/s) read by a negation and by a product: sunk, 1/s and -1/s would each be
  // computed apart (a kernel of their own); a constant value folds, so it sinks.
  Var m = matrix("m", f64), v = vector("v", f64), s = scalar("s", f64);
  Var shared = fill(m, 1 / s);
  auto kept = canon({m, v, s}, {-shared * v, shared * v});
  EXPECT_THAT(op_names(kept.after), ElementsAre("Elemwise{true_div}", "Fill", "Elemwise{neg}", "Elemwise{mul}",
                                                "Elemwise{mul}"));
  expect_same_results(kept, 0.0);
  Var shared_constant = fill(m, constant(0.5, f64));
  auto sunk = canon({m, v}, {-shared_constant * v, shared_constant * v});
  EXPECT_EQ(sunk.after.str(), "t0 = Fill(m, -0.5)\nt1 = Elemwise{mul}(t0, v)\nt2 = Fill(m, 0.5)\n"
                              "t3 = Elemwise{mul}(t2, v)\n");
  expect_same_results(sunk, 0.0);
}

TEST(CanonicalizeFillSink, AnAllocSinksThroughAUnaryOp) {
  Var m = tensor("m", f64, {3, 4}), s = scalar("s", f64);
  auto r = canon({m, s}, {cast(alloc(s, {3, 4}), DType::Float32) * cast(m, DType::Float32)});
  // cast(alloc(s)) -> alloc(cast(s)), which the product (of m's static shape) drops.
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{Cast{float32}}", "Elemwise{Cast{float32}}", "Elemwise{mul}"));
  expect_same_results(r, 0.0);
}

TEST(CanonicalizeFillSink, ADimShuffleOfAScalarFillIsAFillOfTheDimShuffle) {
  // The gradient of sum(t, axis=1) of mean's fill: dimshuffle(fill(t, c), {0, x}) * y; the
  // fill of the shuffled t then meets fill_fill and fill_into_elemwise's tests.
  Var v = vector("v", f64), s = scalar("s", f64), a = tensor("a", f64, {2, 3});
  auto r = canon({v, s, a}, {dimshuffle(fill(v, s), {0, -1}), dimshuffle(alloc(s, {3}), {-1, 0}) + a});
  // alloc(s, (3,)).dimshuffle(x, 0) is alloc(s, (1, 3)), which a (2, 3) broadcasts anyway.
  EXPECT_THAT(op_names(r.after), ElementsAre("DimShuffle{0,x}", "Fill", "Elemwise{add}"));
  EXPECT_EQ(r.after.outputs()[1]->owner()->inputs()[0].get(), r.after.inputs()[1].get()) << r.after.str();
  expect_same_results(r, 0.0);
}

TEST(CanonicalizeFillSink, AFillOfAFillDropsAnInnerLikeThatAddsNothing) {
  // fill(m, fill(dimshuffle(sum(m, 1), {0, x}), s)): the inner like is (rows of m, 1), which m
  // covers; fill(m, fill(v, s)) with an unrelated vector v keeps both.
  Var m = matrix("m", f64), v = vector("v", f64), s = scalar("s", f64);
  Var rows = dimshuffle(sum(m, Axes{1}), {0, -1});
  auto r = canon({m, v, s}, {fill(m, fill(rows, s)), fill(m, fill(v, s))});
  EXPECT_THAT(op_names(r.after), ElementsAre("Fill", "Fill", "Fill"));
  EXPECT_EQ(r.after.outputs()[0]->owner()->inputs()[1].get(), r.after.inputs()[2].get()) << r.after.str();
  expect_same_results(r, 0.0, 1);
  expect_same_results(r, 0.0, 3);
}

TEST(CanonicalizeFillSink, TheMeanGradientOfTheMlpLossReachesItsProducts) {
  // -mean(sum(exp(t) * t, 1)) differentiated w.r.t. t of unknown dims: before, fill(v, -1/n)
  // under DimShuffle{0,x}, filled again to the product's shape, times exp(t) and t; expected,
  // -1/n multiplied into each product directly (each product's other operand is t's shape):
  // no fill, no DimShuffle.
  Var t = matrix("t", DType::Float32);
  Var loss = -mean(sum(exp(t) * t, Axes{1}));
  Var g = grad(loss, std::vector<Var>{t})[0];
  Graph raw = Graph::clone_of(to_ptrs(std::vector<Var>{t}), to_ptrs(std::vector<Var>{g}));
  constant_fold(raw, {});
  const std::vector<Var> in = {Var(raw.inputs()[0])}, out = {Var(raw.outputs()[0])};
  auto count = [](const Graph& graph, const std::string& prefix) {
    int n = 0;
    for (Node* node : graph.toposort()) n += node->op().name().rfind(prefix, 0) == 0;
    return n;
  };
  auto r = canon(in, out);
  EXPECT_EQ(count(r.after, "Fill"), 0) << r.after.str();
  EXPECT_EQ(count(r.after, "DimShuffle"), 0) << r.after.str();
  expect_same_results(r, 1e-6);
  // The DimShuffle{0,x} hid the fill from the products (nested fills need no fill_fill here:
  // fill_into_elemwise peels them one at a time).
  auto without = canon(in, out, excluding({"dimshuffle_fill_sink"}));
  EXPECT_GT(count(without.after, "Fill"), 0) << without.after.str();
}

TEST(CanonicalizeFillSink, ASumOfAnAllocIsTheValueTimesTheCount) {
  // A batch norm's count, sum(ones_like(x), axes) once the shape is known: no tensor of ones.
  Var v = scalar("v", f64);
  std::vector<Var> outs = {sum(alloc(v, {2, 3, 4}), Axes{std::vector<int>{0, 2}}), sum(alloc(v, {2, 3}), Axes{}, true),
                           sum(alloc(v, {5}))};
  auto r = canon({v}, outs);
  for (Node* node : r.after.toposort()) EXPECT_NE(node->op().op_class(), "CAReduce") << r.after.str();
  expect_same_results(r, 0);
  EXPECT_EQ(r.after.outputs()[0]->type().shape, (Shape{3}));
  EXPECT_EQ(r.after.outputs()[1]->type().shape, (Shape{1, 1}));
  auto without = canon({v}, outs, excluding({"sum_of_alloc"}));
  bool summed = false;
  for (Node* node : without.after.toposort()) summed = summed || node->op().op_class() == "CAReduce";
  EXPECT_TRUE(summed) << without.after.str();
}

}  // namespace
}  // namespace tgc
