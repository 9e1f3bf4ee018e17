// canonicalize's broadcast rules (proven with ShapeEquivalence): sum_to_like and fill go where
// the shapes are provably equal with unknown dims, sum_to_like becomes a static sum where its
// axes are fixed, fills sink into the elemwise that reads them — and each stays where an
// unknown dim may be 1 at run time (checked by value with every unknown dim 1 long).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "canon_test_util.h"
#include "compiler/passes/canonicalize.h"
#include "ops/core/apply.h"
#include "ops/gradient/sum_to_like.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using test::expect_same_results;
using test::op_names;

test::PassRun canon(const std::vector<Var>& inputs, const std::vector<Var>& outputs) {
  return test::run_pass(canonicalize, inputs, outputs);
}

int count(const Graph& g, const std::string& name) {
  std::vector<std::string> names = op_names(g);
  return static_cast<int>(std::count(names.begin(), names.end(), name));
}

Var scalar_constant(float value) { return constant(Tensor::scalar<float>(value)); }

Var sum_to_like(const Var& g, const Var& like) {
  return Var(apply1(std::make_shared<SumToLike>(), {g.ptr(), like.ptr()}));
}

TEST(CanonicalizeBroadcast, SumToLikeOfABroadcastOfTheSameValuesIsG) {
  Var x = vector("x"), y = vector("y");
  Var prod = x * y;
  // The gradient of -(x * y) back to x * y: both broadcasts of x and y.
  Var g = -(prod * 2.0) + y;
  auto r = canon({x, y}, {sum_to_like(g, prod)});
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(count(r.after, "SumToLike"), 0) << r.after.str();
  expect_same_results(r);
  expect_same_results(r, 1e-6, 1);
}

TEST(CanonicalizeBroadcast, SumToLikeStaysWhereAnUnknownDimMayBeOne) {
  Var x = vector("x"), y = vector("y");
  // x may be 1 long while y is not: then x * y is longer than x, and the sum is real.
  auto r = canon({x, y}, {sum_to_like(x * y, x)});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{mul}", "SumToLike"));
  EXPECT_FALSE(r.changed);
}

TEST(CanonicalizeBroadcast, SumToLikeWithFixedAxesIsASum) {
  Var m = tensor("m", DType::Float32, {-1, 4}), b = scalar("b"), row = tensor("row", DType::Float32, {1, 4});
  Var t3 = tensor("t3", DType::Float32, {-1, -1, 4});
  // To a scalar: every axis. To a (1, 4) row: axis 0, kept as 1 (axis 1 is 4 on both sides).
  // A rank-3 g to the row: the leading axis, and axis 1 kept as 1.
  auto r = canon({m, b, row, t3}, {sum_to_like(m * b, b), sum_to_like(m + row, row), sum_to_like(t3 + row, row)});
  EXPECT_EQ(count(r.after, "SumToLike"), 0) << r.after.str();
  expect_same_results(r);
  expect_same_results(r, 1e-6, 1);
  expect_same_results(r, 1e-6, 5);
}

TEST(CanonicalizeBroadcast, SumToLikeToARowOfUnknownLengthStays) {
  Var m = matrix("m"), row = matrix("row");
  // row's first dim may be 1 (summed) or m's (kept): only the run knows.
  auto r = canon({m, row}, {sum_to_like(m + row, row)});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{add}", "SumToLike"));
  expect_same_results(r, 1e-6, 1);
}

TEST(CanonicalizeBroadcast, FillOfAValueOfTheFillsShapeIsTheValue) {
  Var x = vector("x"), y = vector("y");
  Var v = x * y;
  // fill(x, x * y): x * y already has the result's shape (x's dims are among its own).
  // fill(x * y + 1, y): y may be shorter than x * y: stays.
  auto r = canon({x, y}, {fill(x, v), fill(v + 1.0, y)});
  EXPECT_EQ(count(r.after, "Fill"), 1) << r.after.str();
  EXPECT_EQ(r.after.outputs()[0]->owner()->op().name(), "Elemwise{mul}");
  expect_same_results(r);
  expect_same_results(r, 1e-6, 1);
}

TEST(CanonicalizeBroadcast, FillSinksIntoTheElemwiseThatBroadcastsAnyway) {
  Var w = vector("w"), m = matrix("m");
  // The bookkeeping of gradients: fill(w ** 2, 0.01) * (2 * w) is 0.01 * (2 * w).
  Var g = fill(sqr(w), scalar_constant(0.01f)) * (w * 2.0);
  // fill(m, 3) + w: w alone does not give m's shape, so the fill stays.
  auto r = canon({w, m}, {g, fill(m, scalar_constant(3.0f)) + w});
  EXPECT_EQ(count(r.after, "Fill"), 1) << r.after.str();
  EXPECT_EQ(count(r.after, "Elemwise{sqr}"), 0) << r.after.str();
  expect_same_results(r);
  expect_same_results(r, 1e-6, 1);
}

TEST(CanonicalizeBroadcast, AllocSinksIntoAnElemwiseOfItsStaticShape) {
  Var a = tensor("a", DType::Float32, {3, 4});
  Var m = tensor("m", DType::Float32, {-1, 4});
  // alloc(2, (3, 4)) * a is 2 * a; alloc(2, (3, 4)) * m stays (m may have 1 row).
  Var two = scalar_constant(2.0f);
  auto r = canon({a, m}, {alloc(two, {3, 4}) * a, alloc(two, {3, 4}) * m});
  // The alloc that stays is folded into a (3, 4) constant (fold_constants).
  EXPECT_EQ(r.after.outputs()[0]->owner()->inputs()[0]->type().ndim(), 0) << r.after.str();
  EXPECT_EQ(r.after.outputs()[1]->owner()->inputs()[0]->type().shape, (std::vector<int64_t>{3, 4})) << r.after.str();
  expect_same_results(r);
  expect_same_results(r, 1e-6, 1);
}

}  // namespace
}  // namespace tgc
