// Gradients of the shape family (Reshape, Flatten, DimShuffle, ReshapeLike): numeric checks
// with verify_grad, the ops the rules build, ReshapeLike's own rules, and non-float inputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "ops/core/apply.h"
#include "ops/core/node.h"
#include "ops/shape/reshape.h"
#include "ops/shape/reshape_like.h"
#include "runtime/random.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using Fn = std::function<Var(const std::vector<Var>&)>;

Tensor randn(const Shape& shape, int64_t seed = 1) { return RandomState(seed).randn(shape); }

// The op that produced v ("" for a graph input).
std::string op_of(const Var& v) { return v.ptr()->owner() ? v.ptr()->owner()->op().name() : ""; }

TEST(ShapeGrad, ReshapeWithInferredDim) {
  verify_grad([](const std::vector<Var>& x) { return x[0].reshape({3, -1}); }, {randn({2, 6})});
  verify_grad([](const std::vector<Var>& x) { return x[0].reshape({-1}); }, {randn({2, 3, 2})});
  verify_grad([](const std::vector<Var>& x) { return x[0].reshape({2, 1, -1, 2}); }, {randn({12})});
  // Scalars and empty tensors.
  verify_grad([](const std::vector<Var>& x) { return x[0].reshape({1, 1}); }, {Tensor::scalar<double>(0.7)});
  verify_grad([](const std::vector<Var>& x) { return x[0].reshape({0, 5}); }, {randn({5, 0})});
}

TEST(ShapeGrad, ReshapeBackToAStaticOrARuntimeShape) {
  // The outer reshape's input has a static shape, so its rule reshapes to that shape; the
  // inner one's input has unknown dims, so its rule reshapes like x when the function runs.
  Fn fn = [](const std::vector<Var>& x) { return x[0].reshape({2, 6}).reshape({4, -1}); };
  verify_grad(fn, {randn({3, 4})});
  Var x = matrix("x", DType::Float64);
  Var g = grad(fn({x}).sum(), x);
  ASSERT_EQ(op_of(g), "ReshapeLike");
  EXPECT_EQ(g.ptr()->owner()->inputs()[1], x.ptr());
  EXPECT_EQ(g.type(), Type(DType::Float64, {kUnknownDim, kUnknownDim}));
  const VarPtr& inner = g.ptr()->owner()->inputs()[0];
  ASSERT_NE(inner->owner(), nullptr);
  EXPECT_EQ(inner->owner()->op().name(), "Reshape{(2, 6)}");
  // The gradient's values: ones in x's shape.
  Function f = function({x}, {g});
  test::expect_same(f(randn({3, 4}))[0], Tensor::full(DType::Float64, {3, 4}, 1.0));
}

TEST(ShapeGrad, Flatten) {
  for (int ndim : {1, 2, 3})
    verify_grad([ndim](const std::vector<Var>& x) { return x[0].flatten(ndim); }, {randn({2, 3, 4})});
  verify_grad([](const std::vector<Var>& x) { return x[0].flatten(1); }, {randn({3, 0, 2})});
}

TEST(ShapeGrad, DimShuffleWithNewAndDroppedAxes) {
  // 'x' axes in the output, a dropped size-1 input axis, and a permutation together.
  verify_grad([](const std::vector<Var>& x) { return x[0].dimshuffle({-1, 2, 0, -1}); }, {randn({2, 1, 3})});
  verify_grad([](const std::vector<Var>& x) { return x[0].dimshuffle({1, -1}); }, {randn({1, 4})});
  verify_grad([](const std::vector<Var>& x) { return squeeze(x[0], {0, 2}); }, {randn({1, 3, 1})});
  verify_grad([](const std::vector<Var>& x) { return expand_dims(x[0], 1); }, {randn({3, 2})});
  // The rule's inverse pattern: input axis 0 went to output 2, axis 1 was dropped (it comes
  // back as a new axis), axis 2 went to output 1; the output's 'x' axis 0 is dropped.
  Var x = tensor("x", DType::Float64, {2, 1, 3});
  Var g = grad(x.dimshuffle({-1, 2, 0}).sum(), x);
  EXPECT_EQ(op_of(g), "DimShuffle{2,x,1}");
  EXPECT_EQ(g.type(), x.type());
}

TEST(ShapeGrad, Transpose) {
  verify_grad([](const std::vector<Var>& x) { return x[0].T(); }, {randn({3, 5})});
  verify_grad([](const std::vector<Var>& x) { return x[0].transpose({1, 2, 0}); }, {randn({2, 3, 4})});
  verify_grad([](const std::vector<Var>& x) { return transpose(x[0], {-1, 0, 1}); }, {randn({2, 3, 4})});
  // A composition of views: reshape of a transpose of a dimshuffle.
  verify_grad([](const std::vector<Var>& x) { return x[0].dimshuffle({1, -1, 0}).T().reshape({-1, 2}); },
              {randn({2, 3})});
}

TEST(ShapeGrad, NonFloatInputsHaveNoGradient) {
  Var xi = matrix("xi", DType::Int32);
  Var g = matrix("g", DType::Int32);
  for (Var y : {xi.reshape({-1}), xi.flatten(), xi.T()}) {
    const Node& node = *y.ptr()->owner();
    std::vector<VarPtr> grads = node.op().grad(node, {g.ptr()});
    ASSERT_EQ(grads.size(), 1u) << node.op().name();
    EXPECT_EQ(grads[0], nullptr) << node.op().name();
  }
}

TEST(ReshapeLike, TypesShapesAndValues) {
  ReshapeLike op;
  EXPECT_EQ(op.infer_types({Type(DType::Float32, {2, 6}), Type(DType::Int64, {kUnknownDim, 4})})[0],
            Type(DType::Float32, {kUnknownDim, 4}));
  EXPECT_EQ(op.infer_shapes({{2, 6}, {3, 4}})[0], (Shape{3, 4}));
  // Values in C order of x, whatever x's layout.
  Tensor x = test::iota({3, 4}).transpose();
  Tensor y = test::run_op(op, {x, Tensor::zeros(DType::Int8, {2, 6})});
  test::expect_same(y, x.contiguous().reshape({2, 6}));
  EXPECT_TRUE(test::run_op(op, {test::iota({0, 3}), Tensor::zeros(DType::Float64, {3, 0})}).shape() == (Shape{3, 0}));
  // It reshapes g back in a gradient, and its own gradient reshapes back to x.
  Var like = constant(Tensor::zeros(DType::Float64, {4, 3}));
  verify_grad(
      [&](const std::vector<Var>& v) { return Var(apply1(std::make_shared<ReshapeLike>(), {v[0].ptr(), like.ptr()})); },
      {randn({2, 6})}, {.seed = 3});
}

TEST(ReshapeLike, SizeMismatchIsAShapeError) {
  ReshapeLike op;
  try {
    op.infer_types({Type(DType::Float32, {2, 6}), Type(DType::Float32, {5})});
    FAIL() << "expected a ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("reshape_like: cannot reshape float32 matrix (2, 6) (12 elements)"));
    EXPECT_THAT(e.what(), HasSubstr("(5 elements)"));
  }
  try {
    op.infer_shapes({{2, 6}, {5, 2}});
    FAIL() << "expected a ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("a tensor of shape (2, 6) (12 elements) to the shape of a tensor of shape "
                                    "(5, 2) (10 elements)"));
  }
  // Unknown sizes are checked when the function runs.
  Var x = matrix("x", DType::Float64), like = vector("like", DType::Float64);
  Var y(apply1(std::make_shared<ReshapeLike>(), {x.ptr(), like.ptr()}));
  Function f = function({x, like}, {y});
  EXPECT_THROW(f(randn({2, 3}), randn({5})), ShapeError);
  test::expect_same(f(test::iota({2, 3}), randn({6}))[0], test::iota({6}));
}

}  // namespace
}  // namespace tgc
