// canonicalize's shape rules: reshapes, dimshuffles, allocs and fills that change nothing go,
// and the run-time-shape ops of gradients become constants or static ops where the shapes
// are known — and stay where they are not.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "canon_test_util.h"
#include "compiler/passes/canonicalize.h"
#include "ops/core/apply.h"
#include "ops/gradient/sum_to_like.h"
#include "ops/join/split_like.h"
#include "ops/reduce/reduce_count.h"
#include "ops/shape/dimshuffle.h"
#include "ops/shape/reshape_like.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using test::expect_same_results;
using test::op_names;

test::PassRun canon(const std::vector<Var>& inputs, const std::vector<Var>& outputs) {
  return test::run_pass(canonicalize, inputs, outputs);
}

Var node1(std::shared_ptr<const Op> op, const std::vector<Var>& inputs) {
  return Var(apply1(std::move(op), to_ptrs(inputs)));
}

TEST(CanonicalizeShape, ReshapeToTheStaticShapeItHas) {
  Var x = tensor("x", DType::Float32, {3, 4});
  Var y = tensor("y", DType::Float32, {-1, 4});
  auto r = canon({x, y}, {x.reshape({3, 4}), x.reshape({-1, 4}), y.reshape({-1, 4})});
  EXPECT_THAT(op_names(r.after), IsEmpty());
  EXPECT_EQ(r.after.outputs()[0].get(), r.after.inputs()[0].get());
  EXPECT_EQ(r.after.outputs()[2].get(), r.after.inputs()[1].get());
  expect_same_results(r);
}

TEST(CanonicalizeShape, ReshapesThatMayChangeTheShapeStay) {
  Var x = tensor("x", DType::Float32, {3, 4});
  Var y = tensor("y", DType::Float32, {-1, 4});
  // y may have 2 rows: reshape(y, (3, 4)) is an error then, which must stay one.
  auto r = canon({x, y}, {x.reshape({4, 3}), y.reshape({3, 4}), y.reshape({4, -1})});
  EXPECT_FALSE(r.changed);
}

TEST(CanonicalizeShape, FlattenToTheRankItHas) {
  Var x = matrix("x");
  Var v = vector("v");
  auto r = canon({x, v}, {x.flatten(2), v.flatten(1), x.flatten(1)});
  EXPECT_THAT(op_names(r.after), ElementsAre("Flatten{1}"));
  EXPECT_EQ(r.after.outputs()[0].get(), r.after.inputs()[0].get());
  EXPECT_EQ(r.after.outputs()[1].get(), r.after.inputs()[1].get());
  expect_same_results(r);
}

TEST(CanonicalizeShape, IdentityDimshuffle) {
  Var x = matrix("x");
  auto r = canon({x}, {node1(std::make_shared<DimShuffle>(std::vector<int>{0, 1}), {x}), x.T()});
  EXPECT_THAT(op_names(r.after), ElementsAre("DimShuffle{1,0}"));
  EXPECT_EQ(r.after.outputs()[0].get(), r.after.inputs()[0].get());
  expect_same_results(r);
}

TEST(CanonicalizeShape, DimshuffleOfDimshuffleIsOne) {
  Var x = matrix("x");
  Var t = tensor("t", DType::Float32, {-1, 1, -1});
  auto r = canon({x, t}, {x.T().T(), x.T().dimshuffle({-1, 0, 1}), t.dimshuffle({0, 2}).dimshuffle({1, 0})});
  EXPECT_THAT(op_names(r.after), ElementsAre("DimShuffle{x,1,0}", "DimShuffle{2,0}"));
  EXPECT_EQ(r.after.outputs()[0].get(), r.after.inputs()[0].get());
  expect_same_results(r);
}

TEST(CanonicalizeShape, AllocOfAValueThatHasTheShape) {
  Var v = tensor("v", DType::Float32, {3, 4});
  Var w = tensor("w", DType::Float32, {4});
  auto r = canon({v, w}, {alloc(v, {3, 4}), alloc(w, {3, 4})});
  EXPECT_THAT(op_names(r.after), ElementsAre("Alloc{(3, 4)}"));
  EXPECT_EQ(r.after.outputs()[0].get(), r.after.inputs()[0].get());
  expect_same_results(r);
}

TEST(CanonicalizeShape, FillOfAValueThatHasTheShape) {
  Var like = tensor("like", DType::Float32, {1, 4});
  Var v = tensor("v", DType::Float32, {-1, 4});
  Var m = matrix("m");
  // fill(m, v): m may have more rows than v (v's rows may be 1): stays.
  auto r = canon({like, v, m}, {fill(like, v), fill(m, v)});
  EXPECT_THAT(op_names(r.after), ElementsAre("Fill"));
  EXPECT_EQ(r.after.outputs()[0].get(), r.after.inputs()[1].get());
  expect_same_results(r, 1e-6, 1);  // every unknown dim 1 long: v broadcasts against m
}

TEST(CanonicalizeShape, OnesLikeAScalarIsTheConstant) {
  Var s = scalar("s");
  auto r = canon({s}, {ones_like(s)});
  EXPECT_THAT(op_names(r.after), IsEmpty());
  EXPECT_EQ(r.after.outputs()[0]->kind(), Variable::Kind::Constant);
  expect_same_results(r);
}

TEST(CanonicalizeShape, FillOfAStaticShapeIsAnAllocThatDropsTheLike) {
  Var x = tensor("x", DType::Float32, {3, 4});
  Var m = matrix("m");
  auto r = canon({x, m}, {zeros_like(exp(x)), zeros_like(exp(m))});
  // The Alloc{(3, 4)} of 0 is then folded, as constant_fold would (fold_constants).
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{exp}", "Fill"));
  EXPECT_EQ(r.after.outputs()[0]->kind(), Variable::Kind::Constant);
  expect_same_results(r);
}

TEST(CanonicalizeShape, ReduceCountOfStaticDimsIsAConstant) {
  Var x = tensor("x", DType::Float32, {3, -1, 5});
  Var on_0_2 = node1(std::make_shared<ReduceCount>(std::vector<int>{0, 2}, DType::Float32), {x});
  Var on_1 = node1(std::make_shared<ReduceCount>(std::vector<int>{1}, DType::Float64), {x});
  Var all = node1(std::make_shared<ReduceCount>(std::nullopt, DType::Int64), {x});
  auto r = canon({x}, {on_0_2, on_1, all});
  EXPECT_THAT(op_names(r.after), ElementsAre("ReduceCount{axis=[1], dtype=float64}", "ReduceCount{dtype=int64}"));
  ASSERT_EQ(r.after.outputs()[0]->kind(), Variable::Kind::Constant);
  EXPECT_EQ(r.after.outputs()[0]->constant_value().item<double>(), 15.0);
  expect_same_results(r);
}

TEST(CanonicalizeShape, ReduceCountOverAStaticZeroDimIsZero) {
  Var x = tensor("x", DType::Float32, {0, -1});
  auto r = canon({x}, {node1(std::make_shared<ReduceCount>(std::nullopt, DType::Int32), {x})});
  ASSERT_EQ(r.after.outputs()[0]->kind(), Variable::Kind::Constant);
  EXPECT_EQ(r.after.outputs()[0]->constant_value().item<int32_t>(), 0);
  expect_same_results(r);
}

TEST(CanonicalizeShape, ReshapeLikeOfAStaticShapeIsAReshape) {
  Var x = vector("x");
  Var like = tensor("like", DType::Float32, {2, 3});
  Var open = matrix("open");
  auto r = canon({x, like, open}, {node1(std::make_shared<ReshapeLike>(), {x, like}),
                                   node1(std::make_shared<ReshapeLike>(), {x, open})});
  EXPECT_THAT(op_names(r.after), ElementsAre("Reshape{(2, 3)}", "ReshapeLike"));
  // x has 6 elements; open is (2, 3) too.
  test::PassRun only_static = canon({x, like}, {node1(std::make_shared<ReshapeLike>(), {x, like})});
  expect_same_results(only_static, 1e-6, 6);
}

TEST(CanonicalizeShape, SplitLikeOfStaticSizesIsASplit) {
  Var x = matrix("x");
  Var a = tensor("a", DType::Float32, {1, -1});
  Var b = tensor("b", DType::Float32, {2, -1});
  Var open = matrix("open");
  std::vector<VarPtr> pieces = tgc::apply(std::make_shared<SplitLike>(0, 2), to_ptrs({x, a, b}));
  std::vector<VarPtr> kept = tgc::apply(std::make_shared<SplitLike>(0, 2), to_ptrs({x, a, open}));
  auto r = canon({x, a, b}, {Var(pieces[0]), Var(pieces[1])});
  EXPECT_THAT(op_names(r.after), ElementsAre("Split{axis=0, sizes=[1, 2]}"));
  expect_same_results(r);
  auto s = canon({x, a, open}, {Var(kept[0]), Var(kept[1])});
  EXPECT_FALSE(s.changed);
}

TEST(CanonicalizeShape, SumToLikeOfTheSameStaticShapeIsG) {
  Var g = tensor("g", DType::Float32, {3, 4});
  Var like = tensor("like", DType::Float32, {3, 4});
  Var row = tensor("row", DType::Float32, {1, 4});
  auto r = canon({g, like, row}, {node1(std::make_shared<SumToLike>(), {g, like}),
                                  node1(std::make_shared<SumToLike>(), {g, row})});
  // To the row: a static sum over axis 0 (sum_to_like_to_sum).
  EXPECT_THAT(op_names(r.after), ElementsAre("Sum{axis=[0], keepdims=True}"));
  EXPECT_EQ(r.after.outputs()[0].get(), r.after.inputs()[0].get());
  expect_same_results(r);
}

TEST(CanonicalizeShape, StopGradientIsTheIdentityAtRunTime) {
  Var x = matrix("x");
  auto r = canon({x}, {stop_gradient(x)});
  EXPECT_THAT(op_names(r.after), IsEmpty());
  expect_same_results(r);
}

}  // namespace
}  // namespace tgc
