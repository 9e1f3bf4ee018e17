// Reshape and Flatten: static types, values, views vs copies, every dtype, errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ops/shape/flatten.h"
#include "ops/shape/reshape.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using namespace test;

TEST(Reshape, ATargetWithMoreThan2To63ElementsIsAShapeError) {
  // Found by fuzzing the .tg language: the product of the target dims must not overflow.
  const int64_t huge = int64_t(1) << 40;
  EXPECT_THROW(resolve_reshape({huge, huge, -1}, 0), ShapeError);
}

TEST(Reshape, NamePrintsTheTarget) {
  EXPECT_EQ(Reshape({5, -1}).name(), "Reshape{(5, -1)}");
  EXPECT_EQ(Reshape({-1}).name(), "Reshape{(-1,)}");
  EXPECT_TRUE(Reshape({2, 3}).equals(Reshape({2, 3})));
  EXPECT_FALSE(Reshape({2, 3}).equals(Reshape({3, 2})));
}

TEST(Reshape, StaticTypeResolvesMinusOneWhenTheSizeIsKnown) {
  EXPECT_EQ(Reshape({-1, 4}).infer_types({Type(DType::Int32, {3, 4, 2})})[0], Type(DType::Int32, {6, 4}));
  // Unknown input size: the -1 stays unknown, the given dims are known.
  EXPECT_EQ(Reshape({-1, 4}).infer_types({Type(DType::Float32, {kUnknownDim, 4})})[0],
            Type(DType::Float32, {kUnknownDim, 4}));
  EXPECT_EQ(Reshape({2, 6}).infer_types({Type::unknown(DType::Float32, 3)})[0], Type(DType::Float32, {2, 6}));
  // A known 0 makes the size known even with other dims unknown.
  EXPECT_EQ(Reshape({-1, 5}).infer_types({Type(DType::Float32, {kUnknownDim, 0})})[0],
            Type(DType::Float32, {0, 5}));
  EXPECT_EQ(Reshape({}).infer_types({Type(DType::Float64, {1, 1})})[0], Type(DType::Float64, {}));
}

TEST(Reshape, SizeMismatchIsAShapeErrorWithHint) {
  try {
    Reshape({5, -1}).infer_types({Type(DType::Float32, {3, 4})});
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.what_part(), "cannot reshape array of size 12 into shape (5, -1)");
    EXPECT_THAT(e.hint(), HasSubstr("divide"));
  }
  try {
    run_op(Reshape({5, 3}), {iota({3, 4})});
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot reshape array of size 12 into shape (5, 3)"));
  }
  // NumPy refuses a -1 next to a 0 even for an empty input.
  EXPECT_THROW(run_op(Reshape({0, -1}), {iota({0})}), ShapeError);
}

TEST(Reshape, MalformedTargetsAreValueErrors) {
  try {
    Reshape({-1, -1}).infer_types({Type(DType::Float32, {4})});
    FAIL() << "expected ValueError";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("can only specify one unknown dimension (-1)"));
    EXPECT_THAT(e.what(), HasSubstr("(-1, -1)"));
  }
  EXPECT_THROW(Reshape({2, -3}).infer_types({Type(DType::Float32, {6})}), ValueError);
}

TEST(Reshape, ContiguousInputGivesAViewSharingTheBuffer) {
  Tensor x = iota({3, 4});
  Tensor y = run_op(Reshape({2, -1}), {x});
  EXPECT_TRUE(y.shares_buffer(x));
  EXPECT_TRUE(tensors_equal(y, iota({2, 6})));
  EXPECT_EQ(Reshape({2, -1}).view_of_input(0), 0);
}

TEST(Reshape, NonContiguousInputIsCopiedInLogicalOrder) {
  Tensor x = iota({2, 3}).transpose();  // [[0,3],[1,4],[2,5]]
  Tensor y = run_op(Reshape({-1}), {x});
  EXPECT_FALSE(y.shares_buffer(x));
  EXPECT_EQ(y.to_vector<double>(), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  Tensor r = reversed_layout(iota({3, 2}), 0);
  ASSERT_LT(r.strides()[0], 0);
  EXPECT_EQ(run_op(Reshape({2, 3}), {r}).to_vector<double>(), (std::vector<double>{0, 1, 2, 3, 4, 5}));
}

TEST(Reshape, EveryDType) {
  for (DType t : kAllDTypes) {
    Tensor x = fortran_layout(iota({2, 3}, t));
    Tensor y = run_op(Reshape({3, 2}), {x});
    EXPECT_EQ(y.dtype(), t);
    EXPECT_TRUE(tensors_equal(y, iota({3, 2}, t))) << dtype_name(t);
  }
}

TEST(Reshape, EmptyAndScalar) {
  EXPECT_EQ(run_op(Reshape({3, 0}), {iota({0, 3})}).shape(), (Shape{3, 0}));
  EXPECT_EQ(run_op(Reshape({-1}), {iota({0, 3})}).shape(), (Shape{0}));
  Tensor s = run_op(Reshape({}), {iota({1, 1})});
  EXPECT_EQ(s.shape(), Shape{});
  EXPECT_EQ(run_op(Reshape({1, -1}), {Tensor::scalar<float>(2.5f)}).to_vector<float>(), std::vector<float>{2.5f});
}

TEST(Flatten, StaticTypesKeepLeadingDims) {
  Type t(DType::Float32, {kUnknownDim, 3, 4});
  EXPECT_EQ(Flatten(1).infer_types({t})[0], Type(DType::Float32, {kUnknownDim}));
  EXPECT_EQ(Flatten(2).infer_types({t})[0], Type(DType::Float32, {kUnknownDim, 12}));
  EXPECT_EQ(Flatten(3).infer_types({t})[0], t);
  EXPECT_EQ(Flatten(1).infer_types({Type(DType::Int8, {kUnknownDim, 0})})[0], Type(DType::Int8, {0}));
  EXPECT_EQ(Flatten(1).infer_types({Type(DType::Int8, {})})[0], Type(DType::Int8, {1}));
  EXPECT_EQ(Flatten(2).name(), "Flatten{2}");
}

TEST(Flatten, BadRankIsAShapeError) {
  try {
    Flatten(3).infer_types({Type(DType::Float32, {2, 2})});
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot flatten a 2-d tensor to 3 dimension(s)"));
  }
  EXPECT_THROW(Flatten(0).infer_types({Type(DType::Float32, {2})}), ShapeError);
}

TEST(Flatten, Values) {
  Tensor x = iota({2, 3, 4});
  Tensor y = run_op(Flatten(2), {x});
  EXPECT_EQ(y.shape(), (Shape{2, 12}));
  EXPECT_TRUE(y.shares_buffer(x));
  EXPECT_TRUE(tensors_equal(y, iota({2, 12})));
  Tensor f = run_op(Flatten(1), {fortran_layout(x)});  // non-contiguous: a copy in C order
  EXPECT_TRUE(tensors_equal(f, iota({24})));
  EXPECT_EQ(run_op(Flatten(2), {iota({3, 0, 2})}).shape(), (Shape{3, 0}));
}

// A transposed view whose merged axes keep their order in memory is merged without a copy:
// stacked (T, m, k) seen as (k, T, m) is (k, T * m) with stride k (a scan's pushed-out
// product reads its steps so). Axes that cannot be walked as one are still copied.
TEST(Flatten, MergeableAxesOfATransposedViewAreAView) {
  Tensor stacked = iota({3, 2, 4});  // (T, m, k)
  Tensor moved = stacked.view({4, 3, 2}, {1, 8, 4}, 0);  // dimshuffle{2, 0, 1}
  Tensor y = run_op(Flatten(2), {moved});
  EXPECT_EQ(y.shape(), (Shape{4, 6}));
  EXPECT_TRUE(y.shares_buffer(stacked));
  EXPECT_EQ(y.strides(), (Strides{1, 4}));
  EXPECT_TRUE(tensors_equal(y, moved.copy().reshape({4, 6})));
  // Reversed consistently: still one walk, backwards.
  Tensor reversed = stacked.view({3, 2, 4}, {-8, -4, -1}, 23);
  Tensor r = run_op(Flatten(1), {reversed});
  EXPECT_TRUE(r.shares_buffer(stacked));
  EXPECT_TRUE(tensors_equal(r, reversed.copy().reshape({24})));
  // (k, m, T): m and T out of memory order, so a copy.
  Tensor swapped = stacked.view({4, 2, 3}, {1, 4, 8}, 0);
  Tensor c = run_op(Flatten(2), {swapped});
  EXPECT_FALSE(c.shares_buffer(stacked));
  EXPECT_TRUE(tensors_equal(c, swapped.copy().reshape({4, 6})));
}

}  // namespace
}  // namespace tgc
