// The statistics the random-stream tests hold draws to, wherever the draws were made (host
// perform, a GPU): the Kolmogorov-Smirnov statistic against a CDF, the normal CDF, and the
// p = 0.001 critical value of D sqrt(n).
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace tgc::test {

// sqrt(-ln(0.0005) / 2): P(D sqrt(n) > 1.95) is about 0.001 for large n.
inline constexpr double kKsCritical001 = 1.95;

// D sqrt(n) of the sample `x` (sorted here) against `cdf`.
template <typename Cdf>
double ks_statistic(std::vector<double> x, Cdf cdf) {
  std::sort(x.begin(), x.end());
  const double n = static_cast<double>(x.size());
  double d = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double f = cdf(x[i]);
    d = std::max({d, f - static_cast<double>(i) / n, static_cast<double>(i + 1) / n - f});
  }
  return d * std::sqrt(n);
}

inline double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }
inline double uniform_cdf(double x) { return std::clamp(x, 0.0, 1.0); }

}  // namespace tgc::test
