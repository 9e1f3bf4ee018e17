// The distributions' statistics on 10^6 draws each: Kolmogorov-Smirnov against the uniform and
// normal CDFs (D sqrt(n) below 1.95, the statistic's p = 0.001 point), means and variances of
// the integers. Draws are deterministic, so these pass or fail the same on every run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "ops/random/random_draw.h"
#include "support/distribution_checks.h"

namespace tgc {
namespace {

constexpr int64_t kN = 1'000'000;
constexpr double kKsCritical = test::kKsCritical001;

Tensor draw(Distribution d, DType t, uint64_t key, int64_t low = 0, int64_t high = 0) {
  RandomDraw op(d, t, Shape{kN}, low, high);
  std::vector<Tensor> out(2);
  op.perform({Tensor::from_vector(std::vector<int64_t>{static_cast<int64_t>(key), 0}, {2})}, out);
  return out[0];
}

template <typename T, typename Cdf>
double ks_statistic(const Tensor& t, Cdf cdf) {
  return test::ks_statistic(std::vector<double>(t.data<T>(), t.data<T>() + t.numel()), cdf);
}

using test::normal_cdf;

template <typename T>
std::pair<double, double> mean_var(const Tensor& t) {
  double s = 0, s2 = 0;
  for (int64_t i = 0; i < t.numel(); ++i) {
    const double v = static_cast<double>(t.data<T>()[i]);
    s += v;
    s2 += v * v;
  }
  const double m = s / static_cast<double>(t.numel());
  return {m, s2 / static_cast<double>(t.numel()) - m * m};
}

TEST(RandomStatistics, UniformPassesKolmogorovSmirnov) {
  auto cdf = test::uniform_cdf;
  const Tensor f32 = draw(Distribution::Uniform, DType::Float32, 1);
  EXPECT_LT(ks_statistic<float>(f32, cdf), kKsCritical);
  const Tensor f64 = draw(Distribution::Uniform, DType::Float64, 2);
  EXPECT_LT(ks_statistic<double>(f64, cdf), kKsCritical);
  const auto [m, v] = mean_var<float>(f32);
  EXPECT_NEAR(m, 0.5, 5 * std::sqrt(1.0 / 12 / kN));
  EXPECT_NEAR(v, 1.0 / 12, 0.001);
  EXPECT_GE(*std::min_element(f32.data<float>(), f32.data<float>() + kN), 0.0f);
  EXPECT_LT(*std::max_element(f32.data<float>(), f32.data<float>() + kN), 1.0f);
}

TEST(RandomStatistics, NormalPassesKolmogorovSmirnov) {
  const Tensor f32 = draw(Distribution::Normal, DType::Float32, 3);
  EXPECT_LT(ks_statistic<float>(f32, normal_cdf), kKsCritical);
  const Tensor f64 = draw(Distribution::Normal, DType::Float64, 4);
  EXPECT_LT(ks_statistic<double>(f64, normal_cdf), kKsCritical);
  const auto [m, v] = mean_var<double>(f64);
  EXPECT_NEAR(m, 0.0, 5 / std::sqrt(double(kN)));
  EXPECT_NEAR(v, 1.0, 0.005);
}

TEST(RandomStatistics, IntegersHaveTheUniformMeanAndVariance) {
  const Tensor t = draw(Distribution::Integers, DType::Int32, 5, -10, 30);  // 40 values
  const auto [m, v] = mean_var<int32_t>(t);
  const double want_m = (-10 + 29) / 2.0, want_v = (40.0 * 40.0 - 1) / 12;
  EXPECT_NEAR(m, want_m, 5 * std::sqrt(want_v / kN));
  EXPECT_NEAR(v, want_v, 0.01 * want_v);
  std::vector<int64_t> count(40, 0);
  for (int64_t i = 0; i < kN; ++i) {
    const int32_t x = t.data<int32_t>()[i];
    ASSERT_GE(x, -10);
    ASSERT_LT(x, 30);
    ++count[static_cast<size_t>(x + 10)];
  }
  for (int64_t c : count) EXPECT_NEAR(static_cast<double>(c), kN / 40.0, 5 * std::sqrt(kN / 40.0));
}

TEST(RandomStatistics, StreamsOfNeighbouringKeysAreUncorrelated) {
  const Tensor a = draw(Distribution::Normal, DType::Float64, 100), b = draw(Distribution::Normal, DType::Float64, 101);
  double s = 0;
  for (int64_t i = 0; i < kN; ++i) s += a.data<double>()[i] * b.data<double>()[i];
  EXPECT_NEAR(s / kN, 0.0, 5 / std::sqrt(double(kN)));
}

}  // namespace
}  // namespace tgc
