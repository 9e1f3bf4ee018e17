// AdvancedSubtensor: NumPy's advanced indexing (placement of the broadcast dims, integers
// mixed with arrays, newaxis, 0-d and empty arrays) against NumPy-produced results from
// scripts/test_data/shape_index.py; every index dtype, non-contiguous operands, errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ops/subtensor/subtensor.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using E = IndexEntry;
using namespace test;

Tensor ints(std::vector<int64_t> v, Shape shape, DType dtype = DType::Int64) {
  return Tensor::from_vector(v, shape).astype(dtype);
}

// The index arrays of shape_index.py.
Tensor A(DType t = DType::Int64) { return ints({1, 0, 1}, {3}, t); }
Tensor B(DType t = DType::Int64) { return ints({0, 2}, {2, 1}, t); }
Tensor C(DType t = DType::Int64) { return ints({-1, 3}, {2}, t); }
Tensor D(DType t = DType::Int64) { return ints({4, 0, 2}, {1, 3}, t); }

Tensor gather(const Tensor& x, std::vector<IndexEntry> entries, const std::vector<Tensor>& arrays) {
  AdvancedSubtensor op(IndexSpec{std::move(entries)});
  std::vector<Tensor> in{x};
  std::vector<Shape> shapes{x.shape()};
  std::vector<Type> types{Type(x.dtype(), x.shape())};
  for (const Tensor& a : arrays) {
    in.push_back(a);
    shapes.push_back(a.shape());
    types.emplace_back(a.dtype(), a.shape());
  }
  Tensor y = run_op(op, in);
  EXPECT_EQ(op.infer_shapes(shapes)[0], y.shape());
  EXPECT_EQ(op.infer_types(types)[0], Type(x.dtype(), y.shape()));
  EXPECT_FALSE(y.shares_buffer(x));
  return y;
}

struct Case {
  std::string name;
  std::vector<IndexEntry> entries;
  std::vector<Tensor> arrays;
};

std::vector<Case> numpy_cases(DType t) {
  const E all = E::slice();
  return {
      {"first", {E::array()}, {A(t)}},
      {"adjacent_middle", {all, E::array(), E::array()}, {B(t), C(t)}},
      {"separated", {all, E::array(), all, E::array()}, {B(t), C(t)}},
      {"int_separated", {E::integer(1), all, E::array()}, {C(t)}},
      {"int_adjacent", {all, E::integer(1), E::array()}, {C(t)}},
      {"slices_around",
       {E::slice(std::nullopt, std::nullopt, -1), E::array(), E::array(), E::slice(1, 4, 2)},
       {B(t), C(t)}},
      {"newaxis_between", {all, E::array(), E::new_axis(), E::array()}, {B(t), C(t)}},
      {"newaxis_before", {E::new_axis(), all, all, E::array()}, {C(t)}},
      {"three_arrays", {all, E::array(), E::array(), E::array()}, {B(t), A(t), D(t)}},
      {"zero_d", {all, E::array()}, {ints({2}, {}, t)}},
      {"empty", {E::array()}, {ints({}, {0}, t)}},
      {"ints_then_array", {E::integer(0), E::integer(1), E::integer(2), E::array()}, {C(t)}},
  };
}

TEST(AdvancedSubtensor, MatchesNumPy) {
  const Tensor x = iota({2, 3, 4, 5}, DType::Int64);
  for (const Case& c : numpy_cases(DType::Int64)) {
    Tensor want = load_npy("subtensor", "adv_" + c.name);
    EXPECT_TRUE(tensors_equal(gather(x, c.entries, c.arrays), want)) << c.name;
  }
}

TEST(AdvancedSubtensor, NonContiguousOperandsMatchNumPy) {
  const Tensor x = iota({2, 3, 4, 5}, DType::Int64);
  for (const Tensor& xv : {fortran_layout(x), reversed_layout(x, 0)}) {
    ASSERT_FALSE(xv.is_contiguous());
    for (Case c : numpy_cases(DType::Int64)) {
      for (Tensor& a : c.arrays)
        if (a.ndim() == 2) a = fortran_layout(a);  // non-contiguous index arrays too
      EXPECT_TRUE(tensors_equal(gather(xv, c.entries, c.arrays), load_npy("subtensor", "adv_" + c.name))) << c.name;
    }
  }
}

TEST(AdvancedSubtensor, EverySignedIndexDType) {
  const Tensor x = iota({2, 3, 4, 5}, DType::Int64);
  for (DType t : {DType::Int8, DType::Int16, DType::Int32})
    for (const Case& c : numpy_cases(t))
      EXPECT_TRUE(tensors_equal(gather(x, c.entries, c.arrays), load_npy("subtensor", "adv_" + c.name)))
          << c.name << " with " << dtype_name(t) << " indices";
  // uint8 indices: the cases without negative indices.
  Tensor first = gather(x, {E::array()}, {A(DType::UInt8)});
  EXPECT_TRUE(tensors_equal(first, load_npy("subtensor", "adv_first")));
  Tensor three = gather(x, {E::slice(), E::array(), E::array(), E::array()},
                        {B(DType::UInt8), A(DType::UInt8), D(DType::UInt8)});
  EXPECT_TRUE(tensors_equal(three, load_npy("subtensor", "adv_three_arrays")));
}

TEST(AdvancedSubtensor, EveryValueDType) {
  for (DType t : kAllDTypes) {
    Tensor x = iota({4, 2}, t);  // [[0,1],[2,3],[4,5],[6,7]] (bool: 0 then true)
    Tensor y = gather(x, {E::array(), E::integer(1)}, {ints({3, -4, 3}, {3})});  // x[[3, -4, 3], 1]
    EXPECT_TRUE(tensors_equal(y, Tensor::from_vector<double>({7, 1, 7}).astype(t))) << dtype_name(t);
  }
}

TEST(AdvancedSubtensor, OutOfBoundsIndicesAreValueErrors) {
  const Tensor x = iota({2, 3});
  EXPECT_THAT([&] { gather(x, {E::slice(), E::array()}, {ints({0, 5}, {2})}); },
              ::testing::ThrowsMessage<ValueError>(HasSubstr("index 5 is out of bounds for axis 1 with size 3")));
  EXPECT_THAT([&] { gather(x, {E::slice(), E::array()}, {ints({-4}, {1})}); },
              ::testing::ThrowsMessage<ValueError>(HasSubstr("index -4 is out of bounds for axis 1 with size 3")));
  // Checked even when the result is empty (NumPy's future behaviour).
  EXPECT_THROW(gather(iota({3, 0}), {E::array()}, {ints({5}, {1})}), ValueError);
  // The axis reported is the input's, not shifted by newaxis entries.
  EXPECT_THAT([&] { gather(x, {E::new_axis(), E::array()}, {ints({2}, {1})}); },
              ::testing::ThrowsMessage<ValueError>(HasSubstr("index 2 is out of bounds for axis 0 with size 2")));
  EXPECT_THAT([&] { gather(x, {E::array(), E::integer(3)}, {ints({0}, {1})}); },
              ::testing::ThrowsMessage<ValueError>(HasSubstr("index 3 is out of bounds for axis 1 with size 3")));
}

TEST(AdvancedSubtensor, ArraysThatDoNotBroadcastAreShapeErrorsAtRunTime) {
  AdvancedSubtensor op(IndexSpec{{E::array(), E::array()}});
  std::vector<Tensor> out(1);
  EXPECT_THAT([&] { op.perform({iota({4, 4}), ints({0, 1}, {2}), ints({0, 1, 2}, {3})}, out); },
              ::testing::ThrowsMessage<ShapeError>(HasSubstr("could not be broadcast together with shapes (2,) (3,)")));
}

TEST(AdvancedSubtensor, EmptyInputAndEmptyIndex) {
  Tensor y = gather(iota({0, 3}), {E::slice(), E::array()}, {ints({2, 0, -1}, {3})});
  EXPECT_EQ(y.shape(), (Shape{0, 3}));
  Tensor z = gather(iota({3, 2}), {E::array()}, {ints({}, {0, 2})});
  EXPECT_EQ(z.shape(), (Shape{0, 2, 2}));
}

}  // namespace
}  // namespace tgc
