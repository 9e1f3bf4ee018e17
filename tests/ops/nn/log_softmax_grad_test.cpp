// LogSoftmaxGrad: its reference perform against g - exp(y) * sum(g) computed by hand, along
// each axis, with strided operands, empty rows and a 0-d input; its type and shape rules; its own
// gradient (verify_grad); and LogSoftmax's gradient rule, which makes it.
#include "ops/nn/log_softmax_grad.h"

#include <gtest/gtest.h>

#include <cmath>

#include <tgc/grad.h>
#include <tgc/tgc.h>

#include "ops/core/apply.h"
#include "ops/core/graph.h"
#include "runtime/random.h"

namespace tgc {
namespace {

Tensor randn(const Shape& shape, int64_t seed) { return RandomState(seed).randn(shape); }

Tensor perform(int axis, const Tensor& g, const Tensor& y) {
  std::vector<Tensor> out(1);
  LogSoftmaxGrad(axis).perform({g, y}, out);
  return out[0];
}

// g - exp(y) * sum(g along `axis`) of matrices, in double, element by element.
Tensor by_hand(int axis, const Tensor& g, const Tensor& y) {
  const Tensor gb = g.astype(DType::Float64).contiguous();
  const Tensor yd = y.astype(DType::Float64).contiguous();
  const int64_t rows = y.shape()[0], cols = y.shape()[1];
  std::vector<double> out(static_cast<size_t>(rows * cols));
  const double* pg = gb.data<double>();
  const double* py = yd.data<double>();
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      double s = 0;
      for (int64_t k = 0; k < (axis == 1 ? cols : rows); ++k) s += axis == 1 ? pg[i * cols + k] : pg[k * cols + j];
      out[static_cast<size_t>(i * cols + j)] = pg[i * cols + j] - std::exp(py[i * cols + j]) * s;
    }
  return Tensor::from_vector(out, y.shape()).astype(y.dtype());
}

TEST(LogSoftmaxGradOp, PerformIsTheFormulaAlongEachAxis) {
  const Tensor g = randn({4, 5}, 1), y = randn({4, 5}, 2);
  for (int axis : {0, 1}) {
    EXPECT_TRUE(tensors_allclose(perform(axis, g, y), by_hand(axis, g, y), 1e-15, 1e-15)) << axis;
    // float32 in, float32 out, computed in double and rounded once.
    const Tensor got = perform(axis, g.astype(DType::Float32), y.astype(DType::Float32));
    EXPECT_EQ(got.dtype(), DType::Float32);
    EXPECT_TRUE(tensors_allclose(got, by_hand(axis, g.astype(DType::Float32), y.astype(DType::Float32)), 1e-7, 1e-7));
  }
  // Strided operands.
  EXPECT_TRUE(tensors_allclose(perform(1, g.transpose().copy().transpose(), y.transpose().copy().transpose()),
                               by_hand(1, g, y), 1e-15, 1e-15));
  // g is y's gradient, of y's shape: a broadcast g is an error, not a sum over its own elements.
  EXPECT_THROW(perform(1, randn({4, 1}, 3), y), ShapeError);
}

TEST(LogSoftmaxGradOp, EmptyAndScalarInputs) {
  EXPECT_EQ(perform(1, Tensor::zeros(DType::Float32, {3, 0}), Tensor::zeros(DType::Float32, {3, 0})).shape(),
            (Shape{3, 0}));
  // A 0-d y is its own row: g - exp(y) * g.
  const Tensor r = perform(0, Tensor::scalar(2.0), Tensor::scalar(-0.5));
  EXPECT_DOUBLE_EQ(r.to_vector<double>()[0], 2.0 - std::exp(-0.5) * 2.0);
}

TEST(LogSoftmaxGradOp, TypesAndShapes) {
  const LogSoftmaxGrad op(1);
  EXPECT_EQ(op.name(), "LogSoftmaxGrad{axis=1}");
  const Type y(DType::Float32, {kUnknownDim, 10});
  EXPECT_EQ(op.infer_types({Type(DType::Float32, {3, kUnknownDim}), y}).at(0), y);
  EXPECT_THROW(op.infer_types({Type(DType::Float32, {kUnknownDim, 1}), y}), ShapeError);
  EXPECT_THROW(op.infer_types({Type(DType::Float64, {2, 10}), y}), TypeError);  // dtypes differ
  EXPECT_THROW(op.infer_types({Type(DType::Float32, {2, 3}), Type(DType::Float32, {2, 10})}), ShapeError);
  EXPECT_THROW(op.infer_types({Type(DType::Int32, {2, 10}), Type(DType::Int32, {2, 10})}), TypeError);
  EXPECT_THROW(LogSoftmaxGrad(2).infer_types({y, y}), ShapeError);  // no axis 2
  EXPECT_EQ(op.infer_shapes({{4, 10}, {4, 10}}).at(0), (Shape{4, 10}));
  EXPECT_THROW(op.infer_shapes({{4, 1}, {4, 10}}), ShapeError);
}

TEST(LogSoftmaxGradOp, ItsGradientIsVerified) {
  auto op = [](int axis) {
    return [axis](const std::vector<Var>& v) {
      return Var(apply1(std::make_shared<LogSoftmaxGrad>(axis), {v[0].ptr(), v[1].ptr()}));
    };
  };
  EXPECT_NO_THROW(verify_grad(op(1), {randn({3, 4}, 4), randn({3, 4}, 5)}));
  EXPECT_NO_THROW(verify_grad(op(0), {randn({3, 4}, 6), randn({3, 4}, 7)}));
  // Second order through LogSoftmax's rule, which makes the op.
  const Tensor w = randn({3, 4}, 10);
  EXPECT_NO_THROW(verify_grad(
      [&](const std::vector<Var>& v) {
        Var c = constant(w);
        Var first = grad(sum(log_softmax(v[0], 1) * c), {v[0]})[0];
        return sum(first * first);
      },
      {randn({3, 4}, 11)}));
}

TEST(LogSoftmaxGradOp, LogSoftmaxsGradientRuleMakesIt) {
  Var x = matrix("x", DType::Float32);
  Var gx = grad(sum(log_softmax(x, 0) * x), {x})[0];
  Graph g = Graph::clone_of({x.ptr()}, {gx.ptr()});
  int found = 0;
  for (Node* n : g.toposort()) found += n->op().name() == "LogSoftmaxGrad{axis=0}";
  EXPECT_EQ(found, 1);
}

}  // namespace
}  // namespace tgc
