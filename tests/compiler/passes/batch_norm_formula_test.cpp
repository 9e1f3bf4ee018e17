// batch_norm_formula.h: BatchNormTraining's one-pass statistics (what decompose_for_fusion
// writes for every backend) against the two-pass formula; their accuracy where the mean is far
// from zero (a plain sum of squares would lose the variance to cancellation); an empty batch's
// NaN statistics (no index error from the shift's slice). The kernel count is in
// decompose_for_fusion_test.cpp.
#include "compiler/passes/batch_norm_formula.h"

#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include <cmath>

#include "ops/core/apply.h"
#include "runtime/random.h"
#include "support/graph_eval.h"

namespace tgc {
namespace {

constexpr double kEps = 1e-3;

struct Layout {
  Shape shape;
  int channel_axis;
};

const Layout kLayouts[] = {{{3, 4, 2, 5}, 1}, {{3, 2, 5, 4}, 3}, {{6, 4}, 1}};

TEST(BatchNormFormula, OnePassStatisticsMatchTheTwoPassFormula) {
  for (const Layout& l : kLayouts) {
    for (DType dtype : {DType::Float64, DType::Float32}) {
      const int64_t c = l.shape[l.channel_axis];
      Var x = tensor("x", dtype, std::vector<int64_t>(l.shape.begin(), l.shape.end()));
      Var gamma = vector("gamma", dtype), beta = vector("beta", dtype);
      const std::vector<VarPtr> in{x.ptr(), gamma.ptr(), beta.ptr()};
      const std::vector<VarPtr> one = batch_norm_training_one_pass(BatchNormTraining(l.channel_axis, kEps), in);
      const std::vector<VarPtr> two = batch_norm_training_formula(l.channel_axis, kEps, in, dtype);
      test::GraphEval eval({{x, RandomState(1).normal(2.0, 3.0, l.shape).astype(dtype)},
                            {gamma, RandomState(2).randn({c}).astype(dtype)},
                            {beta, RandomState(3).randn({c}).astype(dtype)}});
      const double tol = dtype == DType::Float64 ? 1e-12 : 1e-5;
      for (int i = 0; i < 3; ++i) {
        ASSERT_EQ(one[i]->type(), two[i]->type()) << i;
        EXPECT_TRUE(tensors_allclose(eval(Var(one[i])), eval(Var(two[i])), tol, tol))
            << shape_str(l.shape) << " " << dtype_name(dtype) << " output " << i;
      }
    }
  }
}

// float32 data at 1e5 with a spread of 0.01: the sum of squares over n is ~1e10, the variance
// ~1e-4, so float64's rounding of an unshifted sum alone (1e10 * 1e-16) would be 1% of it. The
// shift by each channel's first element keeps the sums near the spread. Compiled on the cpu,
// where the op is written out as the one-pass formula; the truth is the two-pass variance of
// the same float32 values in float64.
TEST(BatchNormFormula, TheVarianceSurvivesAMeanFarFromZero) {
  const Shape shape{64, 3};
  const Tensor xv = RandomState(4).normal(1e5, 0.01, shape).astype(DType::Float32);
  Var x = matrix("x", DType::Float32), gamma = vector("gamma", DType::Float32), beta = vector("beta", DType::Float32);
  std::vector<VarPtr> bn = apply(std::make_shared<BatchNormTraining>(1, kEps), {x.ptr(), gamma.ptr(), beta.ptr()});
  const Tensor ones = Tensor::full(DType::Float32, Shape{3}, 1.0), zeros = Tensor::full(DType::Float32, Shape{3}, 0.0);
  const std::vector<Tensor> got = function({x, gamma, beta}, {Var(bn[1]), Var(bn[2])})(xv, ones, zeros);
  const Tensor& x64 = xv;
  for (int64_t ch = 0; ch < 3; ++ch) {
    double m = 0, v = 0;
    for (int64_t i = 0; i < shape[0]; ++i) m += x64.at({i, ch});
    m /= static_cast<double>(shape[0]);
    for (int64_t i = 0; i < shape[0]; ++i) v += (x64.at({i, ch}) - m) * (x64.at({i, ch}) - m);
    v /= static_cast<double>(shape[0]);
    ASSERT_GT(v, 1e-5) << "the float32 values keep a spread";
    EXPECT_NEAR(got[0].at({ch}), m, 1e-2) << ch;
    EXPECT_NEAR(got[1].at({ch}), v, 1e-4 * v) << ch;
  }
}

TEST(BatchNormFormula, AnEmptyBatchHasNaNStatistics) {
  Var x = tensor("x", DType::Float32, {-1, 3, -1, -1});
  Var gamma = vector("gamma", DType::Float32), beta = vector("beta", DType::Float32);
  std::vector<VarPtr> bn = apply(std::make_shared<BatchNormTraining>(1, kEps), {x.ptr(), gamma.ptr(), beta.ptr()});
  const Tensor ones = Tensor::full(DType::Float32, Shape{3}, 1.0);
  for (const Shape& s : {Shape{0, 3, 4, 4}, Shape{2, 3, 0, 4}}) {
    const std::vector<Tensor> got =
        function({x, gamma, beta}, {Var(bn[0]), Var(bn[1]), Var(bn[2])})(Tensor::full(DType::Float32, s, 1.0), ones, ones);
    EXPECT_EQ(got[0].shape(), s);
    for (int i = 1; i < 3; ++i)
      for (int64_t ch = 0; ch < 3; ++ch) EXPECT_TRUE(std::isnan(got[i].at({ch}))) << i;
  }
}

}  // namespace
}  // namespace tgc
