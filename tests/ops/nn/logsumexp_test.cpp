// LogSumExp: values against SciPy's formula (via NumPy) over each axis set with keepdims
// and in several layouts, inputs that overflow a naive formula, infinities, NaN, empty
// reductions, integer promotion to floatX, names and types.
#include "ops/nn/logsumexp.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using namespace test;

const double kInf = std::numeric_limits<double>::infinity();

TEST(LogSumExp, MatchesSciPyOverEachAxisSetAndLayout) {
  Tensor X = load_npy("nn", "X");
  const std::pair<const char*, ReduceAxes> cases[] = {
      {"all", std::nullopt}, {"0", std::vector<int>{0}}, {"1", std::vector<int>{1}}};
  for (auto [name, axes] : cases) {
    SCOPED_TRACE(name);
    Tensor want = load_npy("nn", std::string("logsumexp_") + name);
    for (const Tensor& in : {X, fortran_layout(X), reversed_layout(X, 1)}) {
      Tensor got = run_op(LogSumExp(axes, false, DType::Float32), {in});
      EXPECT_EQ(got.dtype(), DType::Float64);
      expect_close(got, want);
    }
    Tensor kept = run_op(LogSumExp(axes, true, DType::Float32), {X});
    EXPECT_EQ(kept.ndim(), 2);
    expect_close(kept.reshape(want.shape()), want);
    expect_close(run_op(LogSumExp(axes, false, DType::Float32), {X.astype(DType::Float32)}), want, 1e-6, 1e-6);
  }
}

TEST(LogSumExp, LargeInputsAndInfinities) {
  auto lse = [](std::vector<double> v) {
    return run_op(LogSumExp(std::nullopt, false, DType::Float32), {Tensor::from_vector(v)}).item<double>();
  };
  EXPECT_DOUBLE_EQ(lse({1000, 1000}), 1000 + std::log(2.0));
  EXPECT_DOUBLE_EQ(lse({-1000, -1000}), -1000 + std::log(2.0));
  EXPECT_DOUBLE_EQ(lse({1000, -1000}), 1000);
  EXPECT_EQ(lse({-kInf, -kInf}), -kInf);  // SciPy: all -inf gives -inf
  EXPECT_EQ(lse({1, kInf}), kInf);
  EXPECT_DOUBLE_EQ(lse({-kInf, 0}), 0);
  EXPECT_TRUE(std::isnan(lse({1, std::numeric_limits<double>::quiet_NaN()})));
  EXPECT_TRUE(std::isnan(lse({kInf, std::numeric_limits<double>::quiet_NaN()})));
  float f = run_op(LogSumExp(std::nullopt, false, DType::Float32), {Tensor::from_vector(std::vector<float>{100, 100})}).item<float>();
  EXPECT_FLOAT_EQ(f, 100 + std::log(2.0f));
}

TEST(LogSumExp, EmptyIntegerAndZeroDimInputs) {
  Tensor e = run_op(LogSumExp(std::vector<int>{0}, false, DType::Float32), {Tensor::zeros(DType::Float64, {0, 2})});
  EXPECT_THAT(e.to_vector<double>(), ElementsAre(-kInf, -kInf));
  EXPECT_EQ(run_op(LogSumExp(std::vector<int>{1}, false, DType::Float32), {Tensor::zeros(DType::Float64, {0, 2})}).shape(),
            (Shape{0}));
  Tensor i = run_op(LogSumExp(std::nullopt, false, DType::Float32), {Tensor::from_vector(std::vector<int32_t>{0, 0})});
  EXPECT_EQ(i.dtype(), DType::Float32);
  EXPECT_FLOAT_EQ(i.item<float>(), std::log(2.0f));
  Tensor b = run_op(LogSumExp(std::nullopt, true, DType::Float64), {Tensor::from_vector(std::vector<bool>{true}, {1, 1})});
  EXPECT_EQ(b.dtype(), DType::Float64);
  EXPECT_EQ(b.shape(), (Shape{1, 1}));
  EXPECT_EQ(b.item<double>(), 1.0);
  EXPECT_EQ(run_op(LogSumExp(std::nullopt, false, DType::Float32), {Tensor::scalar(2.5)}).item<double>(), 2.5);
}

TEST(LogSumExp, NamesAndTypes) {
  EXPECT_EQ(LogSumExp(std::vector<int>{1}, false, DType::Float32).name(), "LogSumExp{axis=[1]}");
  EXPECT_EQ(LogSumExp(std::nullopt, true, DType::Float64).name(), "LogSumExp{keepdims=True, floatX=float64}");
  EXPECT_EQ(LogSumExp(std::nullopt, false, DType::Float32).user_name(), "logsumexp");
  LogSumExp op(std::vector<int>{0}, false, DType::Float32);
  EXPECT_EQ(op.infer_types({Type(DType::UInt8, {3, kUnknownDim})})[0], Type(DType::Float32, {kUnknownDim}));
  EXPECT_EQ(op.infer_shapes({{3, 4}})[0], (Shape{4}));
  EXPECT_THROW(LogSumExp(std::vector<int>{2}, false, DType::Float32).infer_types({Type(DType::Float32, {3, 4})}), ShapeError);
}

}  // namespace
}  // namespace tgc
