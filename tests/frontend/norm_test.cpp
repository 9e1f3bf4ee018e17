// Batch normalization (<tgc/norm.h>): the training form's output and statistics against a
// hand computation, PyTorch's momentum rule for the running statistics (unbiased variance),
// the inference form, NHWC, gradients by verify_grad, and errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include <tgc/tgc.h>

#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;

TEST(BatchNorm, TrainingFormAndRunningStatistics) {
  // Two channels over (N=2, H=1, W=2): channel 0 holds 1, 2, 3, 4; channel 1 holds 0 four times.
  Tensor xv = Tensor::from_vector<double>({1, 2, 0, 0, 3, 4, 0, 0}, {2, 2, 1, 2});
  Var x = tensor("x", DType::Float64, {2, 2, 1, 2});
  Shared rm = shared(Tensor::from_vector<double>({1, 1}), "rm"), rv = shared(Tensor::from_vector<double>({1, 1}), "rv");
  Var gamma = constant(Tensor::from_vector<double>({2, 1})), beta = constant(Tensor::from_vector<double>({0, 5}));
  BatchNormOptions o;
  o.epsilon = 1e-3;
  BatchNormTrain bn = batch_normalization_train(x, gamma, beta, rm, rv, o);
  Function f = function({x}, {bn.y, bn.mean, bn.var}, bn.updates);
  std::vector<Tensor> r = f(xv);
  test::expect_close(r[1], Tensor::from_vector<double>({2.5, 0}));
  test::expect_close(r[2], Tensor::from_vector<double>({1.25, 0}));
  const double s = 2 / std::sqrt(1.25 + 1e-3);
  test::expect_close(r[0], Tensor::from_vector<double>({-1.5 * s, -0.5 * s, 5, 5, 0.5 * s, 1.5 * s, 5, 5}, {2, 2, 1, 2}));
  // running = 0.9 * running + 0.1 * batch, the variance unbiased: 1.25 * 4 / 3.
  test::expect_close(rm.get_value(), Tensor::from_vector<double>({0.9 + 0.25, 0.9}));
  test::expect_close(rv.get_value(), Tensor::from_vector<double>({0.9 + 0.1 * 1.25 * 4 / 3, 0.9}));
}

TEST(BatchNorm, InferenceFormAndNhwc) {
  Tensor xv = RandomState(1).randn({3, 2, 2, 4});  // NHWC, 4 channels
  Var x = tensor("x", DType::Float64, {3, 2, 2, 4});
  Tensor m = RandomState(2).randn({4}), v = RandomState(3).rand({4}), g = RandomState(4).randn({4});
  BatchNormOptions o;
  o.layout = ConvLayout::NHWC;
  Var y = batch_normalization_test(x, constant(g), constant(m), constant(m), constant(v), o);
  Tensor got = function({x}, {y})(xv)[0];
  for (int64_t i : {0, 5, 17, 47}) {
    const int64_t c = i % 4;
    const double want = (xv.to_vector<double>()[i] - m.at({c})) * g.at({c}) / std::sqrt(v.at({c}) + 1e-5) + m.at({c});
    EXPECT_NEAR(got.to_vector<double>()[i], want, 1e-12);
  }
}

TEST(BatchNorm, GradientsOfTheTrainingForm) {
  Shared rm = shared(Tensor::zeros(DType::Float64, {3}), "rm"), rv = shared(Tensor::zeros(DType::Float64, {3}), "rv");
  EXPECT_NO_THROW(verify_grad(
      [&](const std::vector<Var>& v) { return batch_normalization_train(v[0], v[1], v[2], rm, rv).y; },
      {RandomState(5).randn({2, 3, 2, 2}), RandomState(6).randn({3}), RandomState(7).randn({3})}));
  EXPECT_NO_THROW(verify_grad(
      [&](const std::vector<Var>& v) { return batch_normalization_train(v[0], v[1], v[2], rm, rv).y; },
      {RandomState(8).randn({4, 3}), RandomState(9).randn({3}), RandomState(10).randn({3})}));
}

// Operands of mixed dtypes (a float32 x, float64 gamma and beta) do not make the op: its formula,
// written out by the frontend, promotes them as its elementwise ops do. The values and the
// gradient are those of the all-float64 op, to float32's precision.
TEST(BatchNorm, MixedDtypesPromoteAsTheFormulaDoes) {
  const Tensor xv = RandomState(11).normal(1.0, 2.0, {4, 3, 2, 2}), gv = RandomState(12).randn({3}),
               bv = RandomState(13).randn({3});
  Shared rm = shared(Tensor::zeros(DType::Float64, {3}), "rm"), rv = shared(Tensor::zeros(DType::Float64, {3}), "rv");
  Var x32 = tensor4("x32", DType::Float32), x64 = tensor4("x64", DType::Float64);
  BatchNormTrain mixed = batch_normalization_train(x32, constant(gv), constant(bv), rm, rv);
  BatchNormTrain wide = batch_normalization_train(x64, constant(gv), constant(bv), rm, rv);
  EXPECT_EQ(mixed.y.ptr()->type().dtype, DType::Float64);
  const Tensor w = RandomState(14).randn({4, 3, 2, 2});
  std::vector<Tensor> got = function({x32}, {mixed.y, grad(sum(mixed.y * constant(w)), x32)})(xv.astype(DType::Float32));
  std::vector<Tensor> want = function({x64}, {wide.y, grad(sum(wide.y * constant(w)), x64)})(xv.astype(DType::Float32).astype(DType::Float64));
  EXPECT_EQ(got[1].dtype(), DType::Float32);
  test::expect_close(got[0], want[0], 1e-5, 1e-5);
  test::expect_close(got[1].astype(DType::Float64), want[1], 1e-4, 1e-4);
}

TEST(BatchNorm, Errors) {
  Shared rm = shared(Tensor::zeros(DType::Float32, {3}), "rm"), rv = shared(Tensor::zeros(DType::Float32, {3}), "rv");
  Var g = vector("g"), b = vector("b");
  try {
    batch_normalization_train(tensor3("x"), g, b, rm, rv);
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("the input x has rank 3, not 2 or 4"));
  }
  try {
    batch_normalization_test(matrix("x"), matrix("gamma"), b, g, g);
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("gamma 'gamma' has rank 2"));
  }
  BatchNormOptions o;
  o.momentum = 2;
  EXPECT_THROW(batch_normalization_train(matrix("x"), g, b, rm, rv, o), ValueError);
}

}  // namespace
}  // namespace tgc
