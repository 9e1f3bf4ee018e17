// The shape functions of the C++ API (reshape, flatten, dimshuffle, transpose, squeeze,
// expand_dims and the Var members), evaluated with the reference ops.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tgc/shape.h>

#include "ops/core/node.h"
#include "support/graph_eval.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using namespace test;

TEST(ShapeApi, TransposeAndT) {
  Var x = tensor("x", DType::Float64, {2, 3, kUnknownDim});
  EXPECT_EQ(op_name(x.T()), "DimShuffle{2,1,0}");
  EXPECT_EQ(x.T().type(), Type(DType::Float64, {kUnknownDim, 3, 2}));
  Var y = x.transpose({0, -1, 1});
  EXPECT_EQ(op_name(y), "DimShuffle{0,2,1}");
  Tensor xv = iota({2, 3, 4});
  Tensor yv = eval(y, {{x, xv}});
  EXPECT_TRUE(tensors_equal(yv, xv.transpose({0, 2, 1})));
  EXPECT_TRUE(yv.shares_buffer(xv));
}

TEST(ShapeApi, TransposeErrorsNameTheCall) {
  Var x = matrix("x");
  try {
    transpose(x, {0, 0});
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("axis 0 repeated"));
    EXPECT_EQ(e.where(), "transpose(x)");
  }
  EXPECT_THROW(transpose(x, {0}), ShapeError);
  EXPECT_THROW(transpose(x, {0, 2}), ShapeError);
}

TEST(ShapeApi, ReshapeAndFlattenMembers) {
  Var x = matrix("x", DType::Int32);
  Var r = x.reshape({-1, 2});
  EXPECT_EQ(op_name(r), "Reshape{(-1, 2)}");
  Tensor xv = iota({3, 4}, DType::Int32);
  EXPECT_TRUE(tensors_equal(eval(r, {{x, xv}}), iota({6, 2}, DType::Int32)));
  Var t3 = tensor3("t");
  Tensor tv = iota({2, 3, 4}, DType::Float32);
  EXPECT_TRUE(tensors_equal(eval(t3.flatten(2), {{t3, tv}}), iota({2, 12}, DType::Float32)));
  EXPECT_TRUE(tensors_equal(eval(flatten(t3), {{t3, tv}}), iota({24}, DType::Float32)));
  // A size mismatch at run time, and at build time when the shape is static.
  EXPECT_THROW(eval(x.reshape({5, -1}), {{x, xv}}), ShapeError);
  Var s = tensor("s", DType::Float32, {3, 4});
  try {
    s.reshape({5, -1});
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot reshape array of size 12 into shape (5, -1)"));
    EXPECT_THAT(e.where(), HasSubstr("reshape(s)"));
  }
}

TEST(ShapeApi, DimshuffleAddsBroadcastableAxes) {
  Var v = vector("v");
  Var row = v.dimshuffle({-1, 0});
  EXPECT_EQ(op_name(row), "DimShuffle{x,0}");
  EXPECT_EQ(row.type(), Type(floatX(), {1, kUnknownDim}));
  Tensor vv = iota({3}, floatX());
  EXPECT_TRUE(tensors_equal(eval(row, {{v, vv}}), iota({1, 3}, floatX())));
  EXPECT_THROW(dimshuffle(v, {1}), ShapeError);
}

TEST(ShapeApi, SqueezeAllBroadcastableOrGivenAxes) {
  Var x = tensor("x", DType::Float64, {1, 3, 1, kUnknownDim});
  Var all = squeeze(x);
  EXPECT_EQ(op_name(all), "DimShuffle{1,3}");
  EXPECT_EQ(all.ptr()->owner()->op().user_name(), "squeeze");
  Tensor xv = iota({1, 3, 1, 2});
  EXPECT_TRUE(tensors_equal(eval(all, {{x, xv}}), iota({3, 2})));
  // An unknown axis may be squeezed; it must be 1 when the function runs.
  Var last = squeeze(x, {-1, 0});
  EXPECT_EQ(last.type(), Type(DType::Float64, {3, 1}));
  EXPECT_TRUE(tensors_equal(eval(last, {{x, iota({1, 3, 1, 1})}}), iota({3, 1})));
  EXPECT_THAT([&] { eval(last, {{x, xv}}); }, ::testing::ThrowsMessage<ShapeError>(HasSubstr("cannot drop axis 3")));
  try {
    squeeze(x, 1);
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("axis 1 of float64 4-d tensor (1, 3, 1, ?)"));
    EXPECT_EQ(e.where(), "squeeze(x)");
  }
  EXPECT_THROW(squeeze(x, 4), ShapeError);
}

TEST(ShapeApi, ExpandDims) {
  Var m = tensor("m", DType::Int64, {2, 3});
  EXPECT_EQ(expand_dims(m, 0).type(), Type(DType::Int64, {1, 2, 3}));
  EXPECT_EQ(expand_dims(m, 2).type(), Type(DType::Int64, {2, 3, 1}));
  EXPECT_EQ(expand_dims(m, -1).type(), Type(DType::Int64, {2, 3, 1}));
  EXPECT_EQ(expand_dims(m, -3).type(), Type(DType::Int64, {1, 2, 3}));
  EXPECT_EQ(op_name(expand_dims(m, 1)), "DimShuffle{0,x,1}");
  Tensor mv = iota({2, 3}, DType::Int64);
  Tensor e = eval(expand_dims(m, 1), {{m, mv}});
  EXPECT_EQ(e.shape(), (Shape{2, 1, 3}));
  EXPECT_EQ(e.to_vector<int64_t>(), mv.to_vector<int64_t>());
  try {
    expand_dims(m, 3);
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("axis 3 is out of bounds"));
    EXPECT_EQ(e.where(), "expand_dims(m)");
  }
}

TEST(ShapeApi, UndefinedVarIsATypeError) { EXPECT_THROW(reshape(Var(), {1}), TypeError); }

}  // namespace
}  // namespace tgc
