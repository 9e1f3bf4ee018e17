// Alloc and Fill, and the creation functions built on them (alloc, zeros, ones,
// zeros_like, ones_like, fill).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tgc/creation.h>

#include "ops/alloc/alloc.h"
#include "ops/core/node.h"
#include "support/graph_eval.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using namespace test;

TEST(Alloc, FillsEveryDType) {
  Alloc op({2, 3});
  EXPECT_EQ(op.name(), "Alloc{(2, 3)}");
  for (DType t : kAllDTypes) {
    Tensor y = run_op(op, {Tensor::scalar<double>(3.0).astype(t)});
    EXPECT_EQ(y.dtype(), t);
    EXPECT_TRUE(tensors_equal(y, Tensor::full(t, {2, 3}, 3.0))) << dtype_name(t);
    EXPECT_EQ(op.infer_types({Type(t, {})})[0], Type(t, {2, 3}));
  }
}

TEST(Alloc, BroadcastsANonScalarValue) {
  Tensor row = reversed_layout(iota({3}), 0);  // [0, 1, 2] with a negative stride
  Tensor y = run_op(Alloc({2, 3}), {row});
  EXPECT_EQ(y.to_vector<double>(), (std::vector<double>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(run_op(Alloc({0, 3}), {row}).shape(), (Shape{0, 3}));
  EXPECT_EQ(run_op(Alloc({}), {Tensor::scalar<int8_t>(-4)}).item<int>(), -4);
}

TEST(Alloc, Errors) {
  EXPECT_THAT([] { Alloc({2, 3}).infer_types({Type(DType::Float32, {2})}); },
              ::testing::ThrowsMessage<ShapeError>(HasSubstr("alloc: a value of shape (2,) cannot be broadcast to "
                                                             "shape (2, 3)")));
  EXPECT_THROW(Alloc({3}).infer_types({Type(DType::Float32, {1, 3})}), ShapeError);
  EXPECT_THAT([] { Alloc({2, -1}).infer_types({Type(DType::Float32, {})}); },
              ::testing::ThrowsMessage<ValueError>(HasSubstr("negative dimension -1")));
  // An unknown value dim passes statically and is checked when it runs.
  EXPECT_NO_THROW(Alloc({2, 3}).infer_types({Type(DType::Float32, {kUnknownDim})}));
  EXPECT_NO_THROW(Alloc({2, 1}).infer_types({Type(DType::Float32, {kUnknownDim})}));
  std::vector<Tensor> out(1);
  EXPECT_THROW(Alloc({2, 3}).perform({iota({2})}, out), ShapeError);
}

TEST(Fill, ShapeOfTheFirstValueOfTheSecond) {
  Tensor like = iota({2, 3}, DType::Int32);
  Tensor y = run_op(Fill(), {like, Tensor::scalar<float>(1.5f)});
  EXPECT_EQ(y.dtype(), DType::Float32);
  EXPECT_TRUE(tensors_equal(y, Tensor::full(DType::Float32, {2, 3}, 1.5)));
  // Broadcast both ways, like Theano's second().
  Tensor z = run_op(Fill(), {iota({2, 1}), Tensor::from_vector<double>({7, 8, 9})});
  EXPECT_EQ(z.to_vector<double>(), (std::vector<double>{7, 8, 9, 7, 8, 9}));
  EXPECT_EQ(Fill().infer_types({Type(DType::Int8, {kUnknownDim, 1}), Type(DType::Bool, {4})})[0],
            Type(DType::Bool, {kUnknownDim, 4}));
  EXPECT_THAT([] { Fill().infer_types({Type(DType::Int8, {2, 3}), Type(DType::Bool, {4})}); },
              ::testing::ThrowsMessage<ShapeError>(HasSubstr("fill: shapes (2, 3) and (4,) cannot be broadcast")));
  EXPECT_EQ(run_op(Fill(), {iota({0, 2}), Tensor::scalar<double>(1)}).shape(), (Shape{0, 2}));
}

TEST(CreationApi, ZerosOnesAlloc) {
  Var z = zeros({2, 2});
  EXPECT_EQ(z.type(), Type(floatX(), {2, 2}));
  EXPECT_TRUE(tensors_equal(eval(z), Tensor::zeros(floatX(), {2, 2})));
  Var o = ones({3}, DType::Int8);
  EXPECT_TRUE(tensors_equal(eval(o), Tensor::full(DType::Int8, {3}, 1)));
  Var v = scalar("v", DType::Float64);
  Var a = alloc(v, {2, 0});
  EXPECT_EQ(a.ptr()->owner()->op().name(), "Alloc{(2, 0)}");
  EXPECT_EQ(eval(a, {{v, Tensor::scalar<double>(2)}}).shape(), (Shape{2, 0}));
  EXPECT_TRUE(tensors_equal(eval(alloc(v, {3}), {{v, Tensor::scalar<double>(-2)}}), Tensor::full(DType::Float64, {3}, -2)));
}

TEST(CreationApi, LikeFunctionsFollowShapeAndDType) {
  Var x = matrix("x", DType::Int16);
  Var z = zeros_like(x);
  EXPECT_EQ(z.type(), Type(DType::Int16, {kUnknownDim, kUnknownDim}));
  Tensor xv = iota({2, 3}, DType::Int16);
  EXPECT_TRUE(tensors_equal(eval(z, {{x, xv}}), Tensor::zeros(DType::Int16, {2, 3})));
  EXPECT_TRUE(tensors_equal(eval(ones_like(x), {{x, xv}}), Tensor::full(DType::Int16, {2, 3}, 1)));
  Var f = fill(x, constant(0.5, DType::Float64));
  EXPECT_EQ(f.dtype(), DType::Float64);
  EXPECT_TRUE(tensors_equal(eval(f, {{x, xv}}), Tensor::full(DType::Float64, {2, 3}, 0.5)));
}

}  // namespace
}  // namespace tgc
