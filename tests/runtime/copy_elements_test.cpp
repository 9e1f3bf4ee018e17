// copy_elements: the one strided element copy behind Tensor::copy/astype and the ops that
// fill, join and update tensors.
#include "runtime/tensor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "runtime/error.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;

TEST(CopyElements, SameDtypeIntoATransposedDestination) {
  Tensor src = Tensor::from_vector(std::vector<int16_t>{1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor dst = Tensor::zeros(DType::Int16, {3, 2}).transpose();  // (2, 3) with strides (1, 2)
  copy_elements(src, dst);
  EXPECT_THAT(dst.to_vector<int16_t>(), ElementsAre(1, 2, 3, 4, 5, 6));
  // The underlying C-order buffer holds the transpose.
  EXPECT_THAT(dst.transpose().contiguous().to_vector<int16_t>(), ElementsAre(1, 4, 2, 5, 3, 6));
}

TEST(CopyElements, BroadcastSourceFillsEveryRow) {
  Tensor row = Tensor::from_vector(std::vector<double>{7, 8, 9}, {3});
  Tensor dst = Tensor::zeros(DType::Float64, {2, 3});
  copy_elements(row.broadcast_to({2, 3}), dst);
  EXPECT_THAT(dst.to_vector<double>(), ElementsAre(7, 8, 9, 7, 8, 9));
}

// Rows contiguous in source and destination are copied a row at a time: a broadcast row over a
// 3-d destination, and a column slice into a column slice (row strides wider than the rows).
TEST(CopyElements, ContiguousRowsOfStridedTensors) {
  Tensor row = Tensor::from_vector(std::vector<float>{1, 2, 3}, {3});
  Tensor dst = Tensor::zeros(DType::Float32, {2, 2, 3});
  copy_elements(row.broadcast_to({2, 2, 3}), dst);
  EXPECT_THAT(dst.to_vector<float>(), ElementsAre(1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3));
  Tensor wide = Tensor::from_vector(std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {2, 5});
  Tensor into = Tensor::zeros(DType::Int32, {2, 4});
  copy_elements(wide.view({2, 3}, {5, 1}, 1), into.view({2, 3}, {4, 1}, 1));  // wide[:, 1:4] -> into[:, 1:4]
  EXPECT_THAT(into.to_vector<int32_t>(), ElementsAre(0, 1, 2, 3, 0, 6, 7, 8));
  // Rows reversed (a negative row stride), rows still contiguous.
  Tensor flipped = Tensor::zeros(DType::Int32, {2, 5});
  copy_elements(wide.view({2, 5}, {-5, 1}, 5), flipped);
  EXPECT_THAT(flipped.to_vector<int32_t>(), ElementsAre(5, 6, 7, 8, 9, 0, 1, 2, 3, 4));
}

TEST(CopyElements, ConvertsLikeAstype) {
  Tensor src = Tensor::from_vector(std::vector<double>{-1.5, 2.7, std::numeric_limits<double>::quiet_NaN(), 1e10},
                                   {4});
  Tensor dst = Tensor::zeros(DType::Int32, {4});
  copy_elements(src, dst);
  // Truncation toward zero, NaN -> 0, saturation (runtime/convert.h).
  EXPECT_THAT(dst.to_vector<int32_t>(), ElementsAre(-1, 2, 0, std::numeric_limits<int32_t>::max()));
  EXPECT_TRUE(tensors_equal(dst, src.astype(DType::Int32)));
}

TEST(CopyElements, NegativeStrideSourceAndEmptyTensors) {
  Tensor v = Tensor::from_vector(std::vector<uint8_t>{1, 2, 3, 4}, {4});
  Tensor reversed = v.view({4}, {-1}, 3);
  Tensor dst = Tensor::zeros(DType::UInt8, {4});
  copy_elements(reversed, dst);
  EXPECT_THAT(dst.to_vector<uint8_t>(), ElementsAre(4, 3, 2, 1));
  Tensor empty_src = Tensor::zeros(DType::Float32, {0, 3});
  Tensor empty_dst = Tensor::zeros(DType::Float64, {0, 3});
  copy_elements(empty_src, empty_dst);
  EXPECT_EQ(empty_dst.numel(), 0);
}

TEST(CopyElements, DifferentShapesAreAnInternalError) {
  EXPECT_THROW(copy_elements(Tensor::zeros(DType::Float32, {2}), Tensor::zeros(DType::Float32, {3})), InternalError);
}

}  // namespace
}  // namespace tgc
