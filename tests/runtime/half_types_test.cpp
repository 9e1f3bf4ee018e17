// The host's float16 and bfloat16 types: rounding to nearest even from float and from double
// (once, never through float), NaN and infinities, limits, and arithmetic carried out in float.
#include "runtime/half_types.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "runtime/convert.h"

namespace tgc {
namespace {

TEST(HalfTypes, Float16RoundsToNearestEven) {
  EXPECT_EQ(float16_t(1.0f).bits, 0x3c00);
  EXPECT_EQ(float16_t(-2.0).bits, 0xc000);
  EXPECT_EQ(float16_t(65504.0f).bits, 0x7bff);
  EXPECT_EQ(float16_t(65520.0f).bits, 0x7c00);  // halfway past the largest: rounds to inf
  // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: ties go to the even 1.
  EXPECT_EQ(float16_t(1.0 + 0x1p-11).bits, 0x3c00);
  EXPECT_EQ(float16_t(1.0 + 3 * 0x1p-11).bits, 0x3c02);
  EXPECT_EQ(float16_t(0x1p-24).bits, 0x0001);  // the smallest subnormal
  EXPECT_EQ(static_cast<float>(float16_t(0.1f)), 0.0999755859375f);
}

TEST(HalfTypes, Float16FromDoubleRoundsOnce) {
  // Just above a tie in double, but a tie once rounded to float: through float this would
  // round to even (down); directly it rounds up.
  const double d = 1.0 + 0x1p-11 + 0x1p-40;
  EXPECT_EQ(static_cast<float>(d), 1.0f + 0x1p-11f);
  EXPECT_EQ(float16_t(d).bits, 0x3c01);
}

TEST(HalfTypes, BFloat16RoundsToNearestEven) {
  EXPECT_EQ(bfloat16_t(1.0f).bits, 0x3f80);
  EXPECT_EQ(bfloat16_t(1.0f + 0x1p-8f).bits, 0x3f80);           // a tie: to even
  EXPECT_EQ(bfloat16_t(1.0f + 3 * 0x1p-8f).bits, 0x3f82);       // a tie: to even (up)
  EXPECT_EQ(bfloat16_t(1.0f + 0x1p-8f + 0x1p-20f).bits, 0x3f81);  // above the tie
  EXPECT_EQ(bfloat16_t(std::numeric_limits<float>::max()).bits, 0x7f80);  // rounds to inf
  EXPECT_EQ(static_cast<float>(bfloat16_t(3.140625f)), 3.140625f);
  EXPECT_EQ(static_cast<float>(bfloat16_t::from_bits(0x3f81)), 1.0f + 0x1p-7f);
}

TEST(HalfTypes, BFloat16FromDoubleRoundsOnce) {
  const double d = 1.0 + 0x1p-8 + 0x1p-40;  // above a tie; through float it is the tie
  EXPECT_EQ(static_cast<float>(d), 1.0f + 0x1p-8f);
  EXPECT_EQ(bfloat16_t(d).bits, 0x3f81);
  EXPECT_EQ(bfloat16_t(1e300).bits, 0x7f80);
  EXPECT_EQ(bfloat16_t(-1e-300).bits, 0x8000);
}

TEST(HalfTypes, NanAndInfinitiesSurvive) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(static_cast<float>(float16_t(nan))));
  EXPECT_TRUE(std::isnan(static_cast<float>(bfloat16_t(nan))));
  EXPECT_TRUE(std::isnan(static_cast<float>(bfloat16_t(std::numeric_limits<float>::signaling_NaN()))));
  EXPECT_EQ(static_cast<float>(float16_t(-INFINITY)), -INFINITY);
  EXPECT_EQ(static_cast<float>(bfloat16_t(INFINITY)), INFINITY);
}

TEST(HalfTypes, LimitsAreNumPysFinfo) {
  EXPECT_EQ(static_cast<float>(std::numeric_limits<float16_t>::max()), 65504.0f);
  EXPECT_EQ(static_cast<float>(std::numeric_limits<float16_t>::epsilon()), 0x1p-10f);
  EXPECT_EQ(static_cast<float>(std::numeric_limits<float16_t>::min()), 0x1p-14f);
  EXPECT_EQ(static_cast<float>(std::numeric_limits<bfloat16_t>::epsilon()), 0x1p-7f);
  EXPECT_EQ(static_cast<float>(std::numeric_limits<bfloat16_t>::max()), 0x1.fep127f);
  EXPECT_EQ(static_cast<float>(std::numeric_limits<bfloat16_t>::lowest()), -0x1.fep127f);
}

TEST(HalfTypes, ArithmeticIsFloatArithmeticRoundedOnAssignment) {
  float16_t a(1.0f), b(0x1p-11f);
  float16_t sum = a + b;  // exact in float, a tie in float16: to even
  EXPECT_EQ(sum.bits, 0x3c00);
  EXPECT_TRUE(a > b);
  static_assert(std::is_same_v<decltype(a + b), float>);
  static_assert(is_float_type_v<bfloat16_t> && !std::is_floating_point_v<bfloat16_t>);
}

TEST(HalfTypes, ConvertValueSaturatesLikeOtherFloats) {
  EXPECT_EQ(convert_value<int8_t>(float16_t(300.0f)), 127);
  EXPECT_EQ(convert_value<uint8_t>(bfloat16_t(-5.0f)), 0);
  EXPECT_EQ(convert_value<int32_t>(float16_t(std::numeric_limits<float>::quiet_NaN())), 0);
  EXPECT_TRUE(convert_value<bool>(bfloat16_t(0.5f)));
  EXPECT_EQ(convert_value<bfloat16_t>(float16_t(0.1f)).bits, bfloat16_t(0.0999755859375f).bits);
}

}  // namespace
}  // namespace tgc
