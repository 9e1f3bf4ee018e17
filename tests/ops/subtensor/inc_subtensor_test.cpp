// IncSubtensor: set/inc for basic and advanced indices against NumPy (np.add.at for
// repeated increments), value broadcasting, dtypes, the input left untouched, errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ops/subtensor/inc_subtensor.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using E = IndexEntry;
using Mode = IncSubtensor::Mode;
using namespace test;

Tensor ints(std::vector<int64_t> v, Shape shape) { return Tensor::from_vector(v, shape); }

Tensor run(Mode mode, std::vector<IndexEntry> entries, const Tensor& x, const Tensor& v,
           const std::vector<Tensor>& arrays = {}) {
  IncSubtensor op(mode, IndexSpec{std::move(entries)});
  std::vector<Tensor> in{x, v};
  std::vector<Shape> shapes{x.shape(), v.shape()};
  std::vector<Type> types{Type(x.dtype(), x.shape()), Type(v.dtype(), v.shape())};
  for (const Tensor& a : arrays) {
    in.push_back(a);
    shapes.push_back(a.shape());
    types.emplace_back(a.dtype(), a.shape());
  }
  EXPECT_EQ(op.infer_types(types)[0], Type(x.dtype(), x.shape()));
  EXPECT_EQ(op.infer_shapes(shapes)[0], x.shape());
  Tensor y = run_op(op, in);
  EXPECT_FALSE(y.shares_buffer(x));
  return y;
}

TEST(IncSubtensor, AdvancedIncAccumulatesRepeatedIndices) {
  const Tensor x = iota({2, 3, 4, 5});
  const Tensor x_before = x.copy();
  // np.add.at(y, (slice(None), [0, 0, 2]), v[:, None]) with v = 0.5 * arange(40).reshape(2, 4, 5)
  std::vector<double> half = iota({2, 1, 4, 5}).to_vector<double>();
  for (double& d : half) d *= 0.5;
  Tensor v = Tensor::from_vector(half, {2, 1, 4, 5});
  Tensor y = run(Mode::Inc, {E::slice(), E::array()}, x, v, {ints({0, 0, 2}, {3})});
  EXPECT_TRUE(tensors_allclose(y, load_npy("subtensor", "inc_repeated"), 0, 0));
  EXPECT_TRUE(tensors_equal(x, x_before));  // the input is not modified
  // Increments through separated arrays (broadcast dims first).
  Tensor s = run(Mode::Inc, {E::slice(), E::array(), E::slice(), E::array()}, x, Tensor::scalar<double>(100.0),
                 {ints({0, 2}, {2, 1}), ints({-1, 3}, {2})});
  EXPECT_TRUE(tensors_equal(s, load_npy("subtensor", "inc_separated")));
}

TEST(IncSubtensor, AdvancedSetWithRepeatedIndicesKeepsTheLastValue) {
  const Tensor x = iota({2, 3, 4, 5});
  std::vector<double> vals;
  for (double fill : {7.0, 9.0, -1.0}) vals.insert(vals.end(), 60, fill);
  Tensor v = Tensor::from_vector(vals, {3, 3, 4, 5});
  Tensor y = run(Mode::Set, {E::array()}, x, v, {ints({1, 1, 0}, {3})});
  EXPECT_TRUE(tensors_equal(y, load_npy("subtensor", "set_repeated")));
}

TEST(IncSubtensor, BasicSetAndInc) {
  const Tensor x = iota({2, 3, 4, 5});
  Tensor inc = run(Mode::Inc, {E::integer(0), E::slice(1, 3)}, x, Tensor::from_vector<double>({1, 2, 3, 4, 5}));
  EXPECT_TRUE(tensors_equal(inc, load_npy("subtensor", "inc_basic")));
  Tensor set = run(Mode::Set, {E::slice(), E::slice(std::nullopt, std::nullopt, -2), E::integer(1)}, x,
                   Tensor::scalar<double>(-5.0));
  EXPECT_TRUE(tensors_equal(set, load_npy("subtensor", "set_basic")));
  // Non-contiguous x and value give the same results.
  Tensor nc = run(Mode::Inc, {E::integer(0), E::slice(1, 3)}, fortran_layout(x),
                  reversed_layout(Tensor::from_vector<double>({1, 2, 3, 4, 5}), 0));
  EXPECT_TRUE(tensors_equal(nc, load_npy("subtensor", "inc_basic")));
  Tensor nc2 = run(Mode::Set, {E::slice(), E::slice(std::nullopt, std::nullopt, -2), E::integer(1)},
                   reversed_layout(x, 0), Tensor::scalar<double>(-5.0));
  EXPECT_TRUE(tensors_equal(nc2, load_npy("subtensor", "set_basic")));
}

TEST(IncSubtensor, EveryDType) {
  for (DType t : kAllDTypes) {
    Tensor x = iota({4}, t);  // [0, 1, 2, 3]
    Tensor one = Tensor::scalar<double>(1.0).astype(t);
    Tensor inc = run(Mode::Inc, {E::array()}, x, one, {ints({1, 1, 3}, {3})});
    Tensor set = run(Mode::Set, {E::slice(1, 3)}, x, Tensor::scalar<double>(0.0).astype(t));
    if (t == DType::Bool) {
      EXPECT_EQ(inc.to_vector<int>(), (std::vector<int>{0, 1, 1, 1}));  // logical or, like np.add.at
    } else {
      EXPECT_EQ(inc.to_vector<double>(), (std::vector<double>{0, 3, 2, 4})) << dtype_name(t);
    }
    EXPECT_EQ(set.to_vector<double>(), (std::vector<double>{0, 0, 0, t == DType::Bool ? 1.0 : 3.0}))
        << dtype_name(t);
  }
}

TEST(IncSubtensor, ValueIsConvertedToTheTensorsDType) {
  // int8 values into float32: allowed (promote(float32, int8) is float32).
  Tensor y = run(Mode::Inc, {E::slice()}, iota({3}, DType::Float32), Tensor::from_vector<int8_t>({1, -2, 3}));
  EXPECT_EQ(y.dtype(), DType::Float32);
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{1, -1, 5}));
}

TEST(IncSubtensor, LossyValueDTypeIsATypeError) {
  IncSubtensor op(Mode::Set, IndexSpec{{E::integer(0)}});
  try {
    op.infer_types({Type(DType::Float32, {3}), Type(DType::Float64, {})});
    FAIL() << "expected TypeError";
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("set_subtensor: cannot store float64 values into a float32 tensor"));
    EXPECT_THAT(e.hint(), HasSubstr("astype"));
  }
  EXPECT_THROW(op.infer_types({Type(DType::Int32, {3}), Type(DType::Float32, {})}), TypeError);
}

TEST(IncSubtensor, ValueMustBroadcastToTheIndexedShape) {
  IncSubtensor op(Mode::Inc, IndexSpec{{E::slice(std::nullopt, 2)}});
  EXPECT_THAT([&] { op.infer_types({Type(DType::Float64, {4, 3}), Type(DType::Float64, {4})}); },
              ::testing::ThrowsMessage<ShapeError>(
                  HasSubstr("inc_subtensor: a value of type float64 vector (4,) cannot be broadcast to the indexed "
                            "float64 matrix (2, 3)")));
  // Statically unknown: checked when it runs.
  EXPECT_NO_THROW(op.infer_types({Type(DType::Float64, {kUnknownDim, 3}), Type(DType::Float64, {kUnknownDim})}));
  std::vector<Tensor> out(1);
  EXPECT_THAT([&] { op.perform({iota({4, 3}), iota({2})}, out); },
              ::testing::ThrowsMessage<ShapeError>(
                  HasSubstr("a value of shape (2,) cannot be broadcast to the indexed shape (2, 3)")));
}

TEST(IncSubtensor, AdvancedOutOfBoundsAndEmpty) {
  std::vector<Tensor> out(1);
  IncSubtensor op(Mode::Inc, IndexSpec{{E::array()}});
  EXPECT_THAT([&] { op.perform({iota({3}), Tensor::scalar<double>(1.0), ints({3}, {1})}, out); },
              ::testing::ThrowsMessage<ValueError>(HasSubstr("index 3 is out of bounds for axis 0 with size 3")));
  Tensor e = run(Mode::Inc, {E::array()}, iota({3}), Tensor::scalar<double>(1.0), {ints({}, {0})});
  EXPECT_TRUE(tensors_equal(e, iota({3})));
  Tensor empty_x = run(Mode::Set, {E::slice(), E::integer(1)}, iota({0, 2}), Tensor::scalar<double>(1.0));
  EXPECT_EQ(empty_x.shape(), (Shape{0, 2}));
}

}  // namespace
}  // namespace tgc
