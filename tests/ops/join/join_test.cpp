// Concatenate and Stack: values, dtype promotion, static types, non-contiguous and empty
// inputs, errors; and the concatenate/stack functions of the C++ API.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tgc/join.h>

#include "ops/core/node.h"
#include "ops/join/join.h"
#include "support/graph_eval.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using namespace test;

// The op's value, checked against infer_shapes and infer_types on the concrete inputs.
Tensor run(const Op& op, const std::vector<Tensor>& in) {
  std::vector<Shape> shapes;
  std::vector<Type> types;
  for (const Tensor& t : in) {
    shapes.push_back(t.shape());
    types.emplace_back(t.dtype(), t.shape());
  }
  Tensor y = run_op(op, in);
  EXPECT_EQ(op.infer_shapes(shapes)[0], y.shape());
  EXPECT_EQ(op.infer_types(types)[0], Type(y.dtype(), y.shape()));
  return y;
}

TEST(Concatenate, ValuesAlongEachAxis) {
  Tensor a = iota({2, 2});                                   // [[0,1],[2,3]]
  Tensor b = Tensor::from_vector<double>({9, 8}, {1, 2});    // [[9,8]]
  EXPECT_EQ(run(Concatenate(0), {a, b}).to_vector<double>(), (std::vector<double>{0, 1, 2, 3, 9, 8}));
  Tensor c = Tensor::from_vector<double>({7, 6}, {2, 1});
  EXPECT_EQ(run(Concatenate(1), {a, c, a}).to_vector<double>(),
            (std::vector<double>{0, 1, 7, 0, 1, 2, 3, 6, 2, 3}));
  EXPECT_EQ(run(Concatenate(-1), {a, c}).shape(), (Shape{2, 3}));
  EXPECT_EQ(Concatenate(1).name(), "Concatenate{axis=1}");
}

TEST(Concatenate, PromotesDTypes) {
  Tensor i = Tensor::from_vector<int32_t>({1, 2});
  Tensor f = Tensor::from_vector<float>({0.5f});
  Tensor u = Tensor::from_vector<uint8_t>({200});
  Tensor i8 = Tensor::from_vector<int8_t>({-3});
  Tensor y = run(Concatenate(0), {i, f});
  EXPECT_EQ(y.dtype(), DType::Float32);  // floatX policy: int32 + float32 -> float32
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{1, 2, 0.5f}));
  Tensor z = run(Concatenate(0), {u, i8});
  EXPECT_EQ(z.dtype(), DType::Int16);  // NumPy: uint8 + int8 -> int16
  EXPECT_EQ(z.to_vector<int>(), (std::vector<int>{200, -3}));
  for (DType t : kAllDTypes) {
    Tensor r = run(Concatenate(0), {iota({2}, t), iota({1}, t)});
    EXPECT_EQ(r.dtype(), t);
    EXPECT_TRUE(tensors_equal(r, Tensor::from_vector<double>({0, 1, 0}).astype(t))) << dtype_name(t);
  }
}

TEST(Concatenate, NonContiguousAndEmptyInputs) {
  Tensor a = fortran_layout(iota({2, 3}));
  Tensor b = reversed_layout(iota({2, 3}), 0);
  Tensor y = run(Concatenate(1), {a, iota({2, 0}), b});
  EXPECT_EQ(y.shape(), (Shape{2, 6}));
  EXPECT_EQ(y.to_vector<double>(), (std::vector<double>{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5}));
  EXPECT_EQ(run(Concatenate(0), {iota({0, 3}), iota({0, 3})}).shape(), (Shape{0, 3}));
}

TEST(Concatenate, StaticTypes) {
  Type a(DType::Float32, {kUnknownDim, 3});
  Type b(DType::Float64, {4, kUnknownDim});
  EXPECT_EQ(Concatenate(0).infer_types({a, b})[0], Type(DType::Float64, {kUnknownDim, 3}));
  EXPECT_EQ(Concatenate(0).infer_types({Type(DType::Int8, {2, 3}), Type(DType::Int8, {4, kUnknownDim})})[0],
            Type(DType::Int8, {6, 3}));
}

TEST(Concatenate, Errors) {
  EXPECT_THAT([] { Concatenate(0).infer_types({Type(DType::Float32, {2, 3}), Type(DType::Float32, {2, 4})}); },
              ::testing::ThrowsMessage<ShapeError>(
                  HasSubstr("along dimension 1, the tensor at index 0 has shape (2, 3) and the tensor at index 1 "
                            "has shape (2, 4)")));
  EXPECT_THAT([] { Concatenate(0).infer_types({Type(DType::Float32, {2, 3}), Type(DType::Float32, {2})}); },
              ::testing::ThrowsMessage<TypeError>(HasSubstr("same number of dimensions")));
  EXPECT_THAT([] { Concatenate(0).infer_types({Type(DType::Float32, {})}); },
              ::testing::ThrowsMessage<TypeError>(HasSubstr("zero-dimensional tensors cannot be concatenated")));
  EXPECT_THAT([] { Concatenate(2).infer_types({Type(DType::Float32, {2, 3})}); },
              ::testing::ThrowsMessage<ShapeError>(HasSubstr("axis 2 is out of bounds for a 2-d tensor")));
  EXPECT_THROW(Concatenate(0).infer_types({}), TypeError);
  // Unknown statically, wrong at run time.
  std::vector<Tensor> out(1);
  EXPECT_THROW(Concatenate(0).perform({iota({2, 3}), iota({2, 2})}, out), ShapeError);
}

TEST(Stack, ValuesAndNewAxisPosition) {
  Tensor a = iota({2, 3}, DType::Int64);
  Tensor b = fortran_layout(iota({2, 3}, DType::Int64));
  Tensor s0 = run(Stack(0), {a, b});
  EXPECT_EQ(s0.shape(), (Shape{2, 2, 3}));
  EXPECT_EQ(s0.to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5}));
  Tensor s2 = run(Stack(-1), {a, reversed_layout(a, 0)});
  EXPECT_EQ(s2.shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(s2.to_vector<int64_t>(), (std::vector<int64_t>{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}));
  // Scalars stack into a vector; dtypes promote.
  Tensor v = run(Stack(0), {Tensor::scalar<int16_t>(3), Tensor::scalar<double>(0.25)});
  EXPECT_EQ(v.dtype(), DType::Float64);
  EXPECT_EQ(v.to_vector<double>(), (std::vector<double>{3, 0.25}));
  EXPECT_EQ(run(Stack(1), {iota({0}), iota({0}), iota({0})}).shape(), (Shape{0, 3}));
  EXPECT_EQ(Stack(1).name(), "Stack{axis=1}");
}

TEST(Stack, Errors) {
  EXPECT_THAT([] { Stack(0).infer_types({Type(DType::Float32, {2, 3}), Type(DType::Float32, {3, 2})}); },
              ::testing::ThrowsMessage<ShapeError>(HasSubstr("all input tensors must have the same shape")));
  EXPECT_THROW(Stack(3).infer_types({Type(DType::Float32, {2, 3})}), ShapeError);
  EXPECT_EQ(Stack(2).infer_types({Type(DType::Float32, {2, 3})})[0], Type(DType::Float32, {2, 3, 1}));
  std::vector<Tensor> out(1);
  EXPECT_THROW(Stack(0).perform({iota({2}), iota({3})}, out), ShapeError);
}

TEST(JoinApi, ConcatenateAndStack) {
  Var a = matrix("a", DType::Float64);
  Var b = matrix("b", DType::Int32);
  Var c = concatenate({a, b}, -1);
  EXPECT_EQ(c.ptr()->owner()->op().name(), "Concatenate{axis=1}");  // canonical axis
  EXPECT_EQ(c.dtype(), DType::Float64);
  Tensor av = iota({2, 1});
  Tensor bv = iota({2, 2}, DType::Int32);
  EXPECT_EQ(eval(c, {{a, av}, {b, bv}}).to_vector<double>(), (std::vector<double>{0, 0, 1, 1, 2, 3}));
  Var s = stack({a, a}, -1);
  EXPECT_EQ(s.ptr()->owner()->op().name(), "Stack{axis=2}");
  EXPECT_EQ(eval(s, {{a, av}}).shape(), (Shape{2, 1, 2}));
  try {
    concatenate({a, vector("v")});
    FAIL() << "expected TypeError";
  } catch (const TypeError& e) {
    EXPECT_THAT(e.where(), HasSubstr("concatenate(a, v)"));
  }
}

}  // namespace
}  // namespace tgc
