// DimShuffle: names, static types, views with the right strides, dropping size-1 axes,
// errors at build time and at run time.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ops/shape/dimshuffle.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using namespace test;

TEST(DimShuffle, TheanoStyleNames) {
  EXPECT_EQ(DimShuffle({1, 0}).name(), "DimShuffle{1,0}");
  EXPECT_EQ(DimShuffle({-1, 0}).name(), "DimShuffle{x,0}");
  EXPECT_EQ(DimShuffle({}).name(), "DimShuffle{}");
  // The user-facing function name is not part of the op's identity.
  EXPECT_TRUE(DimShuffle({1, 0}, "transpose").equals(DimShuffle({1, 0})));
  EXPECT_EQ(DimShuffle({1, 0}, "transpose").user_name(), "transpose");
}

TEST(DimShuffle, StaticTypes) {
  Type m(DType::Int16, {kUnknownDim, 3});
  EXPECT_EQ(DimShuffle({1, 0}).infer_types({m})[0], Type(DType::Int16, {3, kUnknownDim}));
  EXPECT_EQ(DimShuffle({-1, 0, -1, 1}).infer_types({m})[0], Type(DType::Int16, {1, kUnknownDim, 1, 3}));
  // Dropping a statically size-1 axis, and an unknown one (checked when it runs).
  EXPECT_EQ(DimShuffle({1}).infer_types({Type(DType::Float32, {1, 5})})[0], Type(DType::Float32, {5}));
  EXPECT_EQ(DimShuffle({1}).infer_types({m})[0], Type(DType::Int16, {3}));
}

TEST(DimShuffle, BadPatternsAreShapeErrors) {
  Type m(DType::Float32, {2, 3});
  try {
    DimShuffle({0}).infer_types({m});
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot drop axis 1 of float32 matrix (2, 3)"));
    EXPECT_FALSE(e.hint().empty());
  }
  EXPECT_THAT([&] { DimShuffle({0, 0, 1}).infer_types({m}); },
              ::testing::ThrowsMessage<ShapeError>(HasSubstr("input axis 0 appears twice")));
  EXPECT_THAT([&] { DimShuffle({2, 0}).infer_types({m}); },
              ::testing::ThrowsMessage<ShapeError>(HasSubstr("pattern entry 2 is not an axis of a 2-d tensor")));
  EXPECT_THROW(DimShuffle({-2, 0, 1}).infer_types({m}), ShapeError);
}

TEST(DimShuffle, DroppingAnAxisOfSizeOtherThanOneFailsAtRunTime) {
  try {
    run_op(DimShuffle({1}), {iota({2, 3})});
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot drop axis 0 of a tensor of shape (2, 3)"));
  }
  Tensor v = run_op(DimShuffle({1}), {iota({1, 3})});
  EXPECT_TRUE(tensors_equal(v, iota({3})));
}

TEST(DimShuffle, TransposeIsAViewWithPermutedStrides) {
  Tensor x = iota({2, 3, 4}, DType::Int32);
  Tensor y = run_op(DimShuffle({2, 0, 1}), {x});
  EXPECT_TRUE(y.shares_buffer(x));
  EXPECT_EQ(y.shape(), (Shape{4, 2, 3}));
  EXPECT_EQ(y.strides(), (Strides{1, 12, 4}));
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 2; ++j)
      for (int64_t k = 0; k < 3; ++k) EXPECT_EQ(y.at({i, j, k}), x.at({j, k, i}));
}

TEST(DimShuffle, NewAxesAndNegativeStrides) {
  Tensor x = reversed_layout(iota({3, 2}, DType::UInt8), 0);  // values [[0,1],[2,3],[4,5]]
  Tensor y = run_op(DimShuffle({1, -1, 0}), {x});
  EXPECT_EQ(y.shape(), (Shape{2, 1, 3}));
  EXPECT_TRUE(y.shares_buffer(x));
  EXPECT_EQ(y.to_vector<int>(), (std::vector<int>{0, 2, 4, 1, 3, 5}));
  // A scalar to a 1x1 matrix and back.
  Tensor s = Tensor::scalar<bool>(true);
  Tensor m = run_op(DimShuffle({-1, -1}), {s});
  EXPECT_EQ(m.shape(), (Shape{1, 1}));
  EXPECT_EQ(run_op(DimShuffle({}), {m}).item<bool>(), true);
}

TEST(DimShuffle, EmptyTensors) {
  Tensor y = run_op(DimShuffle({1, -1, 0}), {iota({0, 3})});
  EXPECT_EQ(y.shape(), (Shape{3, 1, 0}));
  EXPECT_EQ(y.numel(), 0);
}

}  // namespace
}  // namespace tgc
