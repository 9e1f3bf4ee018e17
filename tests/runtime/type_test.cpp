// Static types: printing with '?' for unknown dims, and which values a type accepts.
#include "runtime/type.h"

#include <gtest/gtest.h>

namespace tgc {
namespace {

TEST(StaticShapeStr, PrintsUnknownDimsAsQuestionMarks) {
  EXPECT_EQ(static_shape_str({kUnknownDim, 784}), "(?, 784)");
  EXPECT_EQ(static_shape_str({kUnknownDim}), "(?,)");
  EXPECT_EQ(static_shape_str({3}), "(3,)");
  EXPECT_EQ(static_shape_str({}), "()");
  EXPECT_EQ(static_shape_str({2, 0, kUnknownDim}), "(2, 0, ?)");
}

TEST(StaticShapeStr, KnownShapesPrintAsShapeStr) {
  for (const Shape& s : {Shape{}, Shape{5}, Shape{400, 784}, Shape{1, 0, 3}})
    EXPECT_EQ(static_shape_str(s), shape_str(s));
}

TEST(Type, StrNamesDtypeRankAndShape) {
  EXPECT_EQ(Type(DType::Float32, {kUnknownDim, 784}).str(), "float32 matrix (?, 784)");
  EXPECT_EQ(Type(DType::Int8, {kUnknownDim}).str(), "int8 vector (?,)");
  EXPECT_EQ(Type(DType::Float64, {2, 3, 4, 5}).str(), "float64 4-d tensor (2, 3, 4, 5)");
  EXPECT_EQ(Type(DType::Bool, {}).str(), "bool scalar");
}

TEST(Type, AcceptsValuesMatchingKnownDims) {
  Type t(DType::Float32, {kUnknownDim, 3});
  EXPECT_TRUE(t.accepts(DType::Float32, {7, 3}));
  EXPECT_FALSE(t.accepts(DType::Float32, {7, 4}));
  EXPECT_FALSE(t.accepts(DType::Float64, {7, 3}));
  EXPECT_FALSE(t.accepts(DType::Float32, {3}));
  EXPECT_TRUE(t.accepts(Type(DType::Float32, {2, 3})));
  EXPECT_FALSE(Type(DType::Float32, {2, 3}).accepts(t));
}

}  // namespace
}  // namespace tgc
