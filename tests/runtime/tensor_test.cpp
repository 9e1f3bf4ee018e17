// Tensor construction, views, copies and conversions.
#include "runtime/tensor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace tgc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Tensor iota23() { return Tensor::from_vector(std::vector<float>{0, 1, 2, 3, 4, 5}, {2, 3}); }

TEST(Tensor, FromVectorIsContiguousCOrder) {
  Tensor t = iota23();
  EXPECT_EQ(t.dtype(), DType::Float32);
  EXPECT_EQ(t.shape(), (Shape{2, 3}));
  EXPECT_EQ(t.strides(), (Strides{3, 1}));
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.at({1, 2}), 5.0);
  EXPECT_EQ(t.nbytes(), 24u);
}

TEST(Tensor, FromVectorWithWrongCountIsAShapeError) {
  EXPECT_THROW(Tensor::from_vector(std::vector<int32_t>{1, 2, 3}, {2, 2}), ShapeError);
}

TEST(Tensor, TransposeIsAViewSharingTheBuffer) {
  Tensor t = iota23();
  Tensor tt = t.transpose();
  EXPECT_TRUE(tt.shares_buffer(t));
  EXPECT_FALSE(tt.is_contiguous());
  EXPECT_EQ(tt.shape(), (Shape{3, 2}));
  EXPECT_THAT(tt.to_vector<float>(), ElementsAre(0, 3, 1, 4, 2, 5));
  EXPECT_THAT(tt.contiguous().to_vector<float>(), ElementsAre(0, 3, 1, 4, 2, 5));
  EXPECT_TRUE(tt.contiguous().is_contiguous());
}

TEST(Tensor, NegativeStrideView) {
  Tensor t = Tensor::from_vector(std::vector<int32_t>{1, 2, 3, 4});
  Tensor rev = t.view({4}, {-1}, 3);  // t[::-1]
  EXPECT_THAT(rev.to_vector<int32_t>(), ElementsAre(4, 3, 2, 1));
  EXPECT_THAT(rev.copy().to_vector<int32_t>(), ElementsAre(4, 3, 2, 1));
}

TEST(Tensor, BroadcastToUsesZeroStrides) {
  Tensor row = Tensor::from_vector(std::vector<double>{1, 2, 3});
  Tensor b = row.broadcast_to({2, 3});
  EXPECT_EQ(b.strides(), (Strides{0, 1}));
  EXPECT_THAT(b.to_vector<double>(), ElementsAre(1, 2, 3, 1, 2, 3));
  EXPECT_THROW(row.broadcast_to({2, 4}), ShapeError);
}

TEST(Tensor, ReshapeOfContiguousIsAViewElseACopy) {
  Tensor t = iota23();
  Tensor r = t.reshape({3, 2});
  EXPECT_TRUE(r.shares_buffer(t));
  Tensor rt = t.transpose().reshape({6});
  EXPECT_FALSE(rt.shares_buffer(t));
  EXPECT_THAT(rt.to_vector<float>(), ElementsAre(0, 3, 1, 4, 2, 5));
  try {
    t.reshape({4});
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot reshape a tensor of shape (2, 3) (6 elements) into shape (4,)"));
  }
}

TEST(Tensor, AstypeConvertsLikeNumPyWithDefinedEdgeCases) {
  Tensor f = Tensor::from_vector(std::vector<double>{1.9, -1.9, 0.0, std::nan(""), 1e30});
  EXPECT_THAT(f.astype(DType::Int32).to_vector<int32_t>(),
              ElementsAre(1, -1, 0, 0, std::numeric_limits<int32_t>::max()));
  EXPECT_THAT(f.astype(DType::Bool).to_vector<bool>(), ElementsAre(true, true, false, true, true));
  Tensor i = Tensor::from_vector(std::vector<int32_t>{300, -1});
  EXPECT_THAT(i.astype(DType::UInt8).to_vector<int32_t>(), ElementsAre(44, 255));  // wraps
}

TEST(Tensor, EmptyTensors) {
  Tensor e = Tensor::empty(DType::Float32, {0, 3});
  EXPECT_EQ(e.numel(), 0);
  EXPECT_TRUE(e.copy().to_vector<float>().empty());
  EXPECT_EQ(e.transpose().shape(), (Shape{3, 0}));
  EXPECT_THROW(Tensor::empty(DType::Float32, {-1}), ShapeError);
}

TEST(Tensor, ItemNeedsExactlyOneElement) {
  EXPECT_EQ(Tensor::scalar<int64_t>(7).item<double>(), 7.0);
  EXPECT_THROW(iota23().item<float>(), ValueError);
}

TEST(Tensor, ReadingWithTheWrongTypeIsATypeError) {
  EXPECT_THROW(iota23().data<double>(), TypeError);
}

TEST(Tensor, AllcloseAndEqual) {
  Tensor a = Tensor::from_vector(std::vector<double>{1.0, std::nan("")});
  Tensor b = Tensor::from_vector(std::vector<double>{1.0 + 1e-9, std::nan("")});
  EXPECT_TRUE(tensors_allclose(a, b));
  EXPECT_FALSE(tensors_equal(a, b));
  EXPECT_TRUE(tensors_equal(a, a.copy()));
  Tensor c = Tensor::from_vector(std::vector<double>{1.1, std::nan("")});
  EXPECT_FALSE(tensors_allclose(a, c));
}

}  // namespace
}  // namespace tgc
