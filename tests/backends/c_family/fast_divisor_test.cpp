// The strided kernels' division by multiply-high and shift (fast_divisor.h) against plain
// division: every divisor up to 4096 with numerators at the edges of each quotient, and
// random divisors and numerators up to 2^31 - 1.
#include "backends/c_family/fast_divisor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

namespace tgc::cfam {
namespace {

TEST(FastDivisor, EqualsDivisionForEveryInt32Index) {
  constexpr uint32_t kMax = 0x7fffffffu;
  for (uint32_t d = 1; d <= 4096; ++d) {
    const int64_t packed = fast_divisor(d);
    ASSERT_LT(static_cast<uint64_t>(packed) >> 8, uint64_t{1} << 32) << "multiplier of " << d;
    for (uint32_t t : {0u, 1u, d - 1, d, d + 1, 2 * d - 1, 2 * d, kMax / d * d - 1, kMax / d * d, kMax - 1, kMax})
      ASSERT_EQ(fast_divide(t, packed), t / d) << t << " / " << d;
  }
  std::mt19937_64 rng(20);
  for (int i = 0; i < 200000; ++i) {
    const uint32_t d = static_cast<uint32_t>(rng() % kMax) + 1 >> (rng() % 31);
    const uint32_t t = static_cast<uint32_t>(rng() % (uint64_t{kMax} + 1));
    ASSERT_EQ(fast_divide(t, fast_divisor(d == 0 ? 1 : d)), t / (d == 0 ? 1 : d)) << t << " / " << d;
  }
}

TEST(FastDivisor, PowersOfTwoAreShifts) {
  for (int k = 0; k < 31; ++k) {
    const int64_t packed = fast_divisor(int64_t{1} << k);
    EXPECT_EQ(packed & 255, k);
    EXPECT_EQ(static_cast<uint64_t>(packed) >> 8, 1u);  // mulhi(t, 1) = 0
  }
}

}  // namespace
}  // namespace tgc::cfam
