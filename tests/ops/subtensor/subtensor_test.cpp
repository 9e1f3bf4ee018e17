// Subtensor (basic indexing): NumPy's slice rules, views sharing the buffer, non-contiguous
// inputs, every dtype, empty results and run-time bounds errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ops/subtensor/subtensor.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using E = IndexEntry;
using namespace test;

Tensor index(const Tensor& x, std::vector<IndexEntry> entries) {
  Subtensor op(IndexSpec{std::move(entries)});
  Tensor y = run_op(op, {x});
  EXPECT_EQ(op.infer_shapes({x.shape()})[0], y.shape());
  return y;
}

struct SliceCase {
  std::optional<int64_t> start, stop, step;
  std::vector<int64_t> expected;  // np.arange(7)[start:stop:step]
};

TEST(Subtensor, SlicesFollowNumPy) {
  const std::vector<SliceCase> cases = {
      {std::nullopt, std::nullopt, std::nullopt, {0, 1, 2, 3, 4, 5, 6}},
      {2, 5, std::nullopt, {2, 3, 4}},
      {-3, std::nullopt, std::nullopt, {4, 5, 6}},
      {std::nullopt, -2, std::nullopt, {0, 1, 2, 3, 4}},
      {-100, 100, std::nullopt, {0, 1, 2, 3, 4, 5, 6}},
      {5, 2, std::nullopt, {}},
      {std::nullopt, std::nullopt, 2, {0, 2, 4, 6}},
      {1, std::nullopt, 3, {1, 4}},
      {std::nullopt, std::nullopt, -1, {6, 5, 4, 3, 2, 1, 0}},
      {5, 1, -2, {5, 3}},
      {-1, -8, -1, {6, 5, 4, 3, 2, 1, 0}},
      {100, -100, -3, {6, 3, 0}},
      {2, 2, std::nullopt, {}},
      {std::nullopt, 3, -1, {6, 5, 4}},
      {-2, std::nullopt, -2, {5, 3, 1}},
      {6, std::nullopt, -4, {6, 2}},
      {7, std::nullopt, std::nullopt, {}},
      {std::nullopt, -100, std::nullopt, {}},
  };
  Tensor x = iota({7}, DType::Int64);
  for (const SliceCase& c : cases) {
    Tensor y = index(x, {E::slice(c.start, c.stop, c.step)});
    EXPECT_EQ(y.to_vector<int64_t>(), c.expected) << E::slice(c.start, c.stop, c.step).str();
    EXPECT_TRUE(y.shares_buffer(x));
  }
}

TEST(Subtensor, MixedEntriesGiveAViewWithNumPysValues) {
  Tensor x = iota({2, 3, 4}, DType::Float32);
  // np.arange(24).reshape(2, 3, 4)[1, ::-1, 1:3] == [[21, 22], [17, 18], [13, 14]]
  Tensor y = index(x, {E::integer(1), E::slice(std::nullopt, std::nullopt, -1), E::slice(1, 3)});
  EXPECT_TRUE(y.shares_buffer(x));
  EXPECT_EQ(y.shape(), (Shape{3, 2}));
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{21, 22, 17, 18, 13, 14}));
  // x[-1, newaxis, :, -2] == [[6+12+..]]: x[1, :, 2] = [14, 18, 22] with a new leading axis.
  Tensor z = index(x, {E::integer(-1), E::new_axis(), E::slice(), E::integer(-2)});
  EXPECT_EQ(z.shape(), (Shape{1, 3}));
  EXPECT_EQ(z.to_vector<float>(), (std::vector<float>{14, 18, 22}));
  // Fewer entries than axes: the rest are full slices; a full index gives a 0-d view.
  EXPECT_EQ(index(x, {E::integer(0)}).shape(), (Shape{3, 4}));
  Tensor e = index(x, {E::integer(1), E::integer(2), E::integer(3)});
  EXPECT_EQ(e.shape(), Shape{});
  EXPECT_EQ(e.item<float>(), 23.0f);
  EXPECT_TRUE(e.shares_buffer(x));
}

TEST(Subtensor, NonContiguousInputs) {
  Tensor t = iota({3, 4}).transpose();  // t[i][j] = 4j + i, shape (4, 3)
  Tensor y = index(t, {E::slice(1, std::nullopt, 2), E::integer(2)});  // t[1::2, 2] = [9, 11]
  EXPECT_EQ(y.to_vector<double>(), (std::vector<double>{9, 11}));
  EXPECT_TRUE(y.shares_buffer(t));
  Tensor r = reversed_layout(iota({4, 2}), 0);  // values 0..7, axis 0 walks backwards in memory
  Tensor z = index(r, {E::slice(std::nullopt, std::nullopt, -2), E::integer(1)});  // rows 3, 1 -> [7, 3]
  EXPECT_EQ(z.to_vector<double>(), (std::vector<double>{7, 3}));
  // Slicing a slice: offsets compose.
  Tensor s = index(index(iota({10}), {E::slice(2)}), {E::slice(1, 6, 2)});
  EXPECT_EQ(s.to_vector<double>(), (std::vector<double>{3, 5, 7}));
}

TEST(Subtensor, EveryDType) {
  for (DType t : kAllDTypes) {
    Tensor x = fortran_layout(iota({3, 2}, t));
    Tensor y = index(x, {E::slice(std::nullopt, std::nullopt, -1), E::integer(0)});
    EXPECT_EQ(y.dtype(), t);
    EXPECT_TRUE(tensors_equal(y, Tensor::from_vector<double>({4, 2, 0}).astype(t))) << dtype_name(t);
  }
}

TEST(Subtensor, EmptyTensorsAndEmptySlices) {
  Tensor x = iota({0, 3});
  EXPECT_EQ(index(x, {E::slice(), E::integer(1)}).shape(), (Shape{0}));
  EXPECT_EQ(index(x, {E::slice(std::nullopt, std::nullopt, -1)}).shape(), (Shape{0, 3}));
  EXPECT_EQ(index(iota({4, 3}), {E::slice(3, 1), E::slice(std::nullopt, std::nullopt, 2)}).shape(), (Shape{0, 2}));
}

TEST(Subtensor, OutOfBoundsIntegerIsAValueError) {
  Subtensor op(IndexSpec{{E::integer(5)}});
  std::vector<Tensor> out(1);
  try {
    op.perform({iota({3})}, out);
    FAIL() << "expected ValueError";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("index 5 is out of bounds for axis 0 with size 3"));
    EXPECT_THAT(e.hint(), HasSubstr("-3 .. 2"));
  }
  EXPECT_THROW(op.perform({iota({0})}, out), ValueError);
  EXPECT_THROW(op.infer_shapes({{2, 2}}), ValueError);
}

}  // namespace
}  // namespace tgc
