// The reductions API (<tgc/reductions.h>): the nodes it builds, static types, axis
// handling through Var members, error messages with the user's names, and a compiled run.
#include <tgc/reductions.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tgc/function.h>

#include "support/graph_eval.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using test::op_name;

TEST(ReductionsApi, BuildsCanonicalNodesWithStaticTypes) {
  Var x = tensor("x", DType::Float32, {kUnknownDim, 784});
  EXPECT_EQ(op_name(x.sum(-1)), "Sum{axis=[1]}");
  EXPECT_EQ(x.sum(-1).type(), Type(DType::Float32, {kUnknownDim}));
  EXPECT_EQ(op_name(sum(x, {0, 1})), "Sum");
  EXPECT_EQ(op_name(x.sum()), "Sum");
  EXPECT_EQ(op_name(prod(x, 0, true)), "Prod{axis=[0], keepdims=True}");
  EXPECT_EQ(prod(x, 0, true).type(), Type(DType::Float32, {1, 784}));
  EXPECT_EQ(op_name(x.max(1)), "Max{axis=[1]}");
  EXPECT_EQ(op_name(x.min()), "Min");
  EXPECT_EQ(all(x).type(), Type(DType::Bool, {}));
  EXPECT_EQ(op_name(any(x, -2)), "Any{axis=[0]}");
  EXPECT_EQ(x.argmax().type(), Type(DType::Int64, {}));
  EXPECT_EQ(op_name(x.argmax(-1)), "Argmax{axis=1}");
  EXPECT_EQ(x.argmin(0, true).type(), Type(DType::Int64, {1, 784}));
  EXPECT_EQ(op_name(logsumexp(x, 1)), "LogSumExp{axis=[1]}");
  EXPECT_EQ(logsumexp(x, 1).type(), Type(DType::Float32, {kUnknownDim}));
}

TEST(ReductionsApi, ZeroDimInputsAcceptAxisZero) {
  Var s = scalar("s", DType::Int32);
  EXPECT_EQ(op_name(s.sum(0)), "Sum");
  EXPECT_EQ(s.sum(-1).type(), Type(DType::Int64, {}));
  EXPECT_EQ(op_name(s.argmax(-1)), "Argmax{axis=0}");
  try {
    s.max(1);
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("max: axis 1 is out of bounds for a 0-d tensor in max(s)"));
  }
}

TEST(ReductionsApi, DtypeRules) {
  Var i = matrix("i", DType::Int32);
  EXPECT_EQ(i.sum().dtype(), DType::Int64);
  EXPECT_EQ(i.prod(0).dtype(), DType::Int64);
  EXPECT_EQ(i.max(0).dtype(), DType::Int32);
  EXPECT_EQ(i.mean(1).dtype(), floatX());
  EXPECT_EQ(logsumexp(i).dtype(), floatX());
  EXPECT_EQ(vector("b", DType::Bool).sum().dtype(), DType::Int64);
  EXPECT_EQ(vector("u", DType::UInt8).sum().dtype(), DType::Int64);
  EXPECT_EQ(matrix("d", DType::Float64).mean().dtype(), DType::Float64);
}

TEST(ReductionsApi, AxisErrorsNameTheCall) {
  Var x = matrix("x");
  try {
    x.sum(2);
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("sum: axis 2 is out of bounds for a 2-d tensor in sum(x)"));
    EXPECT_THAT(e.hint(), HasSubstr("valid axes are -2 .. 1"));
  }
  try {
    mean(x, {1, -1});
    ADD_FAILURE() << "no error";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("duplicate value in 'axis'"));
    EXPECT_EQ(e.where(), "mean(x)");
  }
  try {
    x.argmin(-3);
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.where(), "argmin(x)");
  }
  Var e = tensor("e", DType::Float32, {0, 3});
  try {
    e.max(0);
    ADD_FAILURE() << "no error";
  } catch (const ValueError& err) {
    EXPECT_THAT(err.what(), HasSubstr("zero-size array to reduction operation max which has no identity"));
    EXPECT_EQ(err.where(), "max(e)");
  }
  EXPECT_NO_THROW(e.sum(0));
  EXPECT_THROW(sum(Var()), TypeError);
}

TEST(ReductionsApi, CompiledFunctionComputesTheReductions) {
  Var x = matrix("x", DType::Float64);
  Function f = function({x}, {x.sum(0), x.argmax(1), x.mean(), x.max(-1, true), any(x, 1)});
  Tensor v = Tensor::from_vector(std::vector<double>{1, 5, -2, 0, 3, 3}, {2, 3});
  std::vector<Tensor> r = f(v.transpose().copy().transpose());
  EXPECT_THAT(r[0].to_vector<double>(), ElementsAre(1, 8, 1));
  EXPECT_THAT(r[1].to_vector<int64_t>(), ElementsAre(1, 1));
  EXPECT_DOUBLE_EQ(r[2].item<double>(), 10.0 / 6.0);
  EXPECT_EQ(r[3].shape(), (Shape{2, 1}));
  EXPECT_THAT(r[3].to_vector<double>(), ElementsAre(5, 3));
  EXPECT_THAT(r[4].to_vector<bool>(), ElementsAre(true, true));
}

}  // namespace
}  // namespace tgc
