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
  EXPECT_EQ(dtype_size(DType::Float16), 2u);
  EXPECT_EQ(dtype_size(DType::BFloat16), 2u);
}

TEST(DType, HalfTypesAreFloats) {
  for (DType t : {DType::Float16, DType::BFloat16}) {
    EXPECT_TRUE(is_float(t));
    EXPECT_TRUE(is_half(t));
    EXPECT_FALSE(is_integer(t));
  }
  EXPECT_FALSE(is_half(DType::Float32));
  EXPECT_EQ(parse_dtype("bfloat16"), DType::BFloat16);
  EXPECT_EQ(dtype_name(DType::Float16), "float16");
}

TEST(DType, HalfPromotionFollowsNumPyAndMlDtypes) {
  // np.result_type(float16, float32) and ml_dtypes' bfloat16 likewise.
  EXPECT_EQ(promote(DType::Float16, DType::Float32), DType::Float32);
  EXPECT_EQ(promote(DType::BFloat16, DType::Float64), DType::Float64);
  EXPECT_EQ(promote(DType::Int8, DType::Float16), DType::Float16);
  EXPECT_EQ(promote(DType::Bool, DType::BFloat16), DType::BFloat16);
  // The floatX policy: integers keep the float's width (NumPy: int32 + float16 -> float64).
  EXPECT_EQ(promote(DType::Int32, DType::Float16), DType::Float16);
  EXPECT_EQ(promote(DType::BFloat16, DType::Int64), DType::BFloat16);
  // Neither holds the other: float32, as JAX promotes (NumPy with ml_dtypes refuses).
  EXPECT_EQ(promote(DType::Float16, DType::BFloat16), DType::Float32);
  EXPECT_EQ(promote(DType::BFloat16, DType::Float16), DType::Float32);
  EXPECT_EQ(float_of(DType::Int16, DType::BFloat16), DType::BFloat16);
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
  bool is_bf16 = dispatch_dtype(DType::BFloat16, []<typename T>() { return std::is_same_v<T, bfloat16_t>; });
  EXPECT_TRUE(is_bf16);
}

}  // namespace
}  // namespace tgc
