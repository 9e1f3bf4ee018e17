// DType names, sizes and NumPy promotion with the floatX policy.
#include "runtime/dtype.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/error.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;

TEST(DType, NamesRoundTrip) {
  for (DType t : kAllDTypes) EXPECT_EQ(parse_dtype(dtype_name(t)), t);
}

TEST(DType, UnknownNameIsATypeErrorListingValidNames) {
  try {
    parse_dtype("float16x");
    FAIL() << "expected TypeError";
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown dtype 'float16x'"));
    EXPECT_THAT(e.what(), HasSubstr("hint: valid dtypes are bool"));
  }
}

TEST(DType, Sizes) {
  EXPECT_EQ(dtype_size(DType::Bool), 1u);
  EXPECT_EQ(dtype_size(DType::Int16), 2u);
  EXPECT_EQ(dtype_size(DType::Int32), 4u);
  EXPECT_EQ(dtype_size(DType::Int64), 8u);
  EXPECT_EQ(dtype_size(DType::UInt8), 1u);
  EXPECT_EQ(dtype_size(DType::Float32), 4u);
  EXPECT_EQ(dtype_size(DType::Float64), 8u);
}

TEST(DType, PromotionFollowsNumPyForIntegers) {
  EXPECT_EQ(promote(DType::Int8, DType::Int32), DType::Int32);
  EXPECT_EQ(promote(DType::UInt8, DType::Int8), DType::Int16);   // np.result_type(uint8, int8)
  EXPECT_EQ(promote(DType::UInt8, DType::Int16), DType::Int16);
  EXPECT_EQ(promote(DType::UInt8, DType::Int64), DType::Int64);
  EXPECT_EQ(promote(DType::Bool, DType::UInt8), DType::UInt8);
  EXPECT_EQ(promote(DType::Bool, DType::Bool), DType::Bool);
}

TEST(DType, FloatXPolicyKeepsFloatWidthWhenMixedWithIntegers) {
  // NumPy would give float64 for int32 + float32; the design keeps float32.
  EXPECT_EQ(promote(DType::Int32, DType::Float32), DType::Float32);
  EXPECT_EQ(promote(DType::Float32, DType::Int64), DType::Float32);
  EXPECT_EQ(promote(DType::Float32, DType::Float64), DType::Float64);
  EXPECT_EQ(promote(DType::Bool, DType::Float64), DType::Float64);
}

TEST(DType, FloatOf) {
  EXPECT_EQ(float_of(DType::Int32, DType::Float32), DType::Float32);
  EXPECT_EQ(float_of(DType::Int32, DType::Float64), DType::Float64);
  EXPECT_EQ(float_of(DType::Float64, DType::Float32), DType::Float64);
}

TEST(DType, DispatchSelectsTheCppType) {
  size_t s = dispatch_dtype(DType::Int16, []<typename T>() { return sizeof(T); });
  EXPECT_EQ(s, 2u);
  bool is_double = dispatch_dtype(DType::Float64, []<typename T>() { return std::is_same_v<T, double>; });
  EXPECT_TRUE(is_double);
}

}  // namespace
}  // namespace tgc
