// Gradient rules of the nn family, checked numerically with verify_grad (float64, random
// points): softmax and log_softmax along each axis of vectors, matrices and 3-d tensors,
// logsumexp over several axis sets; plus hand-computed values, dtypes, and integer inputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include <tgc/tgc.h>
#include <tgc/grad.h>

#include "ops/core/apply.h"
#include "ops/nn/logsumexp.h"
#include "ops/nn/softmax.h"
#include "runtime/random.h"

namespace tgc {
namespace {

Tensor randn(const Shape& shape, int64_t seed) { return RandomState(seed).randn(shape); }

TEST(SoftmaxGrad, EveryAxis) {
  for (int axis : {0, 1, 2, -1, -2, -3}) {
    SCOPED_TRACE(axis);
    EXPECT_NO_THROW(verify_grad([&](const std::vector<Var>& v) { return softmax(v[0], axis); }, {randn({2, 3, 4}, 1)}));
  }
  for (int axis : {0, 1, -1}) {
    SCOPED_TRACE(axis);
    EXPECT_NO_THROW(verify_grad([&](const std::vector<Var>& v) { return softmax(v[0], axis); }, {randn({3, 4}, 2)}));
  }
  EXPECT_NO_THROW(verify_grad([](const std::vector<Var>& v) { return softmax(v[0]); }, {randn({5}, 3)}));
}

TEST(LogSoftmaxGrad, EveryAxis) {
  for (int axis : {0, 1, 2, -1, -2, -3}) {
    SCOPED_TRACE(axis);
    EXPECT_NO_THROW(verify_grad([&](const std::vector<Var>& v) { return log_softmax(v[0], axis); }, {randn({2, 3, 4}, 4)}));
  }
  for (int axis : {0, 1, -1}) {
    SCOPED_TRACE(axis);
    EXPECT_NO_THROW(verify_grad([&](const std::vector<Var>& v) { return log_softmax(v[0], axis); }, {randn({3, 4}, 5)}));
  }
  EXPECT_NO_THROW(verify_grad([](const std::vector<Var>& v) { return log_softmax(v[0]); }, {randn({5}, 6)}));
}

TEST(SoftmaxGrad, LargeInputsStayFinite) {
  // The rules use the op's own (shifted) output, so x of 1000 is no problem.
  Tensor x = Tensor::from_vector<double>({1000, 1001, 999, -1000, -1001, -999}, {2, 3});
  EXPECT_NO_THROW(verify_grad([](const std::vector<Var>& v) { return softmax(v[0]); }, {x}));
  EXPECT_NO_THROW(verify_grad([](const std::vector<Var>& v) { return log_softmax(v[0]); }, {x}));
  EXPECT_NO_THROW(verify_grad([](const std::vector<Var>& v) { return logsumexp(v[0], Axes{1}); }, {x}));
}

TEST(LogSumExpGrad, AxisSets) {
  Tensor x = randn({2, 3, 4}, 7);
  for (Axes axes : {Axes{}, Axes{0}, Axes{-1}, Axes{0, 2}, Axes{1, 2}})
    for (bool keepdims : {false, true})
      EXPECT_NO_THROW(verify_grad([&](const std::vector<Var>& v) { return logsumexp(v[0], axes, keepdims); }, {x}));
  EXPECT_NO_THROW(verify_grad([](const std::vector<Var>& v) { return logsumexp(v[0]); }, {Tensor::scalar(0.3)}));
}

TEST(SoftmaxGrad, GradientGraphsAreDifferentiableToo) {
  // Second order through the rules' own graphs (used by hessian).
  Tensor x = randn({2, 3}, 9), w = randn({2, 3}, 10);
  EXPECT_NO_THROW(verify_grad([](const std::vector<Var>& v) { return grad((softmax(v[0]) * v[1]).sum(), v[0]); }, {x, w}));
  EXPECT_NO_THROW(
      verify_grad([](const std::vector<Var>& v) { return grad((log_softmax(v[0], 0) * v[1]).sum(), v[0]); }, {x, w}));
}

TEST(SoftmaxGrad, HandComputedValues) {
  // x = [0, ln 3]: s = [1/4, 3/4]. d s_0 / dx = s_0 (e_0 - s) = [3/16, -3/16].
  Var x = vector("x", DType::Float64);
  Var w = constant(Tensor::from_vector<double>({1, 0}, {2}));
  Function f = function({x}, {grad((softmax(x) * w).sum(), x), grad((log_softmax(x) * w).sum(), x),
                              grad(logsumexp(x), x)});
  auto g = f(Tensor::from_vector<double>({0, std::log(3.0)}, {2}));
  auto near = [](const Tensor& t, std::vector<double> want) {
    auto got = t.to_vector<double>();
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-15) << i;
  };
  near(g.at(0), {3.0 / 16, -3.0 / 16});
  // d log s_0 / dx = e_0 - s = [3/4, -3/4]; d lse / dx = s.
  near(g.at(1), {0.75, -0.75});
  near(g.at(2), {0.25, 0.75});
}

TEST(SoftmaxGrad, SumOfSoftmaxHasZeroGradient) {
  // softmax rows sum to 1 whatever x is.
  Var x = matrix("x", DType::Float64);
  Function f = function({x}, {grad(softmax(x, 1).sum(), x)});
  for (double v : f(randn({3, 4}, 8)).at(0).to_vector<double>()) EXPECT_NEAR(v, 0.0, 1e-15);
}

TEST(SoftmaxGrad, Float32StaysFloat32) {
  Var x = matrix("x", DType::Float32);
  for (Var cost : {softmax(x).sum(), log_softmax(x, 0).sum(), logsumexp(x, Axes{1}).sum()}) {
    Var gx = grad(cost, x);
    EXPECT_EQ(gx.ptr()->type().dtype, DType::Float32);
    EXPECT_EQ(gx.ptr()->type().ndim(), 2);
  }
}

TEST(SoftmaxGrad, IntegerInputsHaveNullGradients) {
  VarPtr xi = matrix("i", DType::Int32).ptr();
  for (auto op : {std::shared_ptr<const Op>(std::make_shared<Softmax>(1, false, DType::Float64)),
                  std::shared_ptr<const Op>(std::make_shared<Softmax>(0, true, DType::Float64)),
                  std::shared_ptr<const Op>(std::make_shared<LogSumExp>(std::nullopt, false, DType::Float64))}) {
    VarPtr y = apply1(op, {xi});
    EXPECT_EQ(op->grad(*y->owner(), {Variable::input(y->type(), "g")}).at(0), nullptr) << op->name();
  }
}

}  // namespace
}  // namespace tgc
