// The linalg API (<tgc/linalg.h>): dot/matmul/batched_dot/outer build the right nodes,
// errors carry the user's names, and a compiled function computes the products.
#include <tgc/linalg.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tgc/function.h>

#include "support/graph_eval.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using test::op_name;

TEST(LinalgApi, BuildsNodes) {
  Var x = tensor("x", DType::Float32, {kUnknownDim, 784});
  Var w = tensor("w", DType::Float32, std::vector<int64_t>{784});
  EXPECT_EQ(op_name(dot(x, w)), "Dot");
  EXPECT_EQ(dot(x, w).type(), Type(DType::Float32, {kUnknownDim}));
  EXPECT_EQ(op_name(matmul(x, w)), "Dot");
  Var a = tensor3("a"), b = tensor3("b");
  EXPECT_EQ(op_name(matmul(a, b)), "BatchedDot");
  EXPECT_EQ(op_name(batched_dot(a, matrix("m"))), "BatchedDot");
  EXPECT_EQ(matmul(a, vector("k")).type(), Type(floatX(), {kUnknownDim, kUnknownDim}));
  EXPECT_EQ(outer(vector("u", DType::Int8), vector("v", DType::Int8)).type(), Type(DType::Int8, {kUnknownDim, kUnknownDim}));
}

TEST(LinalgApi, ErrorsNameTheUsersVariables) {
  Var x = tensor("x", DType::Float32, {400, 784});
  Var w = tensor("w", DType::Float32, std::vector<int64_t>{785});
  try {
    dot(x, w);
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("dot: shapes (400, 784) and (785,) are not aligned (dim 1 != dim 0) in dot(x, w)"));
    EXPECT_THAT(e.what(), HasSubstr("hint: "));
  }
  try {
    matmul(x, tensor("v", DType::Float32, {3, 5}));
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("matmul: shapes (400, 784) and (3, 5) are not aligned (dim 1 != dim 0) in matmul(x, v)"));
  }
  try {
    dot(tensor3("t"), x);
    ADD_FAILURE() << "no error";
  } catch (const TypeError& e) {
    EXPECT_THAT(e.hint(), HasSubstr("batched_dot"));
  }
  EXPECT_THROW(batched_dot(x, x), TypeError);
}

TEST(LinalgApi, CompiledFunctionComputesProducts) {
  Var a = matrix("a", DType::Float64), v = vector("v", DType::Float64);
  Function f = function({a, v}, {dot(a, v), dot(v, v), outer(v, v), matmul(a.T(), a)});
  Tensor av = Tensor::from_vector(std::vector<double>{1, 2, 3, 4}, {2, 2});
  Tensor vv = Tensor::from_vector(std::vector<double>{1, -1});
  std::vector<Tensor> r = f(av, vv);
  EXPECT_THAT(r[0].to_vector<double>(), ElementsAre(-1, -1));
  EXPECT_EQ(r[1].item<double>(), 2);
  EXPECT_THAT(r[2].to_vector<double>(), ElementsAre(1, -1, -1, 1));
  EXPECT_THAT(r[3].to_vector<double>(), ElementsAre(10, 14, 14, 20));
}

}  // namespace
}  // namespace tgc
