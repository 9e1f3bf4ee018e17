// The indexing functions of the C++ API: Var::operator[], set_subtensor, inc_subtensor and
// take, evaluated with the reference ops.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tgc/function.h>
#include <tgc/indexing.h>
#include <tgc/shape.h>

#include "ops/core/node.h"
#include "support/graph_eval.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using namespace test;

TEST(IndexingApi, BasicIndexBuildsASubtensorView) {
  Var x = matrix("x");
  Var y = x[{1, slice({}, {}, -1)}];
  EXPECT_EQ(op_name(y), "Subtensor{1, ::-1}");
  EXPECT_EQ(y.type(), Type(floatX(), {kUnknownDim}));
  Tensor xv = iota({2, 3}, floatX());
  Tensor yv = eval(y, {{x, xv}});
  EXPECT_EQ(yv.to_vector<double>(), (std::vector<double>{5, 4, 3}));
  EXPECT_TRUE(yv.shares_buffer(xv));
  EXPECT_EQ(op_name(x[-1]), "Subtensor{-1}");
  Var z = x[{colon, newaxis, 0}];
  EXPECT_EQ(op_name(z), "Subtensor{:, newaxis, 0}");
  EXPECT_EQ(z.type(), Type(floatX(), {kUnknownDim, 1}));
}

TEST(IndexingApi, IntegerVarBuildsAnAdvancedSubtensor) {
  Var x = matrix("x", DType::Float64);
  Var idx = vector("idx", DType::Int32);
  Var rows = x[idx];
  EXPECT_EQ(op_name(rows), "AdvancedSubtensor{array}");
  Var cols = x[{colon, idx}];
  EXPECT_EQ(op_name(cols), "AdvancedSubtensor{:, array}");
  Tensor xv = iota({3, 2});
  Tensor iv = Tensor::from_vector<int32_t>({2, -3, 2});
  EXPECT_EQ(eval(rows, {{x, xv}, {idx, iv}}).to_vector<double>(), (std::vector<double>{4, 5, 0, 1, 4, 5}));
  EXPECT_THROW(eval(cols, {{x, xv}, {idx, iv}}), ValueError);  // 2 is out of bounds for axis 1
  // A float index is refused when the graph is built, with the user's names.
  Var f = vector("f");
  try {
    x[f];
    FAIL() << "expected TypeError";
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("integer dtype, got " + std::string(dtype_name(floatX()))));
    EXPECT_THAT(e.where(), HasSubstr("x"));
    EXPECT_THAT(e.where(), HasSubstr("f"));
  }
}

TEST(IndexingApi, SetAndIncSubtensorTakeTheIndexingExpression) {
  Var x = vector("x", DType::Float64);
  Var idx = vector("idx", DType::Int64);
  Var v = scalar("v", DType::Float64);
  Tensor xv = iota({5});
  Tensor iv = Tensor::from_vector<int64_t>({0, 0, 4});
  Var inc = inc_subtensor(x[idx], v);
  EXPECT_EQ(op_name(inc), "IncSubtensor{Inc;array}");
  EXPECT_EQ(eval(inc, {{x, xv}, {idx, iv}, {v, Tensor::scalar<double>(10.0)}}).to_vector<double>(),
            (std::vector<double>{20, 1, 2, 3, 14}));
  Var set = set_subtensor(x[{slice(1, 3)}], 7.5);
  EXPECT_EQ(op_name(set), "IncSubtensor{Set;1:3}");
  EXPECT_EQ(eval(set, {{x, xv}}).to_vector<double>(), (std::vector<double>{0, 7.5, 7.5, 3, 4}));
  EXPECT_EQ(xv.to_vector<double>(), (std::vector<double>{0, 1, 2, 3, 4}));  // x untouched
  EXPECT_EQ(eval(inc_subtensor(x[2], -1.0), {{x, xv}}).to_vector<double>(), (std::vector<double>{0, 1, 1, 3, 4}));
}

TEST(IndexingApi, SetSubtensorOfANonIndexingExpressionIsATypeError) {
  Var x = vector("x");
  try {
    set_subtensor(x, 1.0);
    FAIL() << "expected TypeError";
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("set_subtensor: the first argument must be an indexing expression"));
    EXPECT_THAT(e.what(), HasSubstr("but x is not"));
    EXPECT_THAT(e.hint(), HasSubstr("set_subtensor(x[{...}], value)"));
  }
  EXPECT_THROW(inc_subtensor(x.T(), 1.0), TypeError);
}

TEST(IndexingApi, TakeAlongAnAxisOrFlattened) {
  Var x = matrix("x", DType::Int32);
  Var idx = vector("idx", DType::Int64);
  Tensor xv = iota({2, 3}, DType::Int32);  // [[0,1,2],[3,4,5]]
  Tensor iv = Tensor::from_vector<int64_t>({-1, 0});
  // np.take(x, [-1, 0], axis=1) == [[2, 0], [5, 3]]; np.take(x, [-1, 0]) == [5, 0]
  EXPECT_EQ(eval(take(x, idx, 1), {{x, xv}, {idx, iv}}).to_vector<int>(), (std::vector<int>{2, 0, 5, 3}));
  EXPECT_EQ(eval(take(x, idx, -2), {{x, xv}, {idx, iv}}).to_vector<int>(), (std::vector<int>{3, 4, 5, 0, 1, 2}));
  EXPECT_EQ(eval(take(x, idx), {{x, xv}, {idx, iv}}).to_vector<int>(), (std::vector<int>{5, 0}));
  EXPECT_THROW(take(x, idx, 2), ShapeError);
}

TEST(IndexingApi, CompiledFunctionWithViewsAndUpdatesLeavesInputsAlone) {
  // Views (transpose, basic index) and a set_subtensor of the same input, through function().
  Var x = matrix("x", DType::Float64);
  Var idx = vector("idx", DType::Int64);
  Function f = function({x, idx}, {x.T()[{0}], set_subtensor(x[{colon, idx}], -1.0), x[{1}]});
  Tensor xv = iota({2, 3});
  Tensor iv = Tensor::from_vector<int64_t>({2, 2});
  std::vector<Tensor> r = f(xv, iv);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].to_vector<double>(), (std::vector<double>{0, 3}));
  EXPECT_EQ(r[1].to_vector<double>(), (std::vector<double>{0, 1, -1, 3, 4, -1}));
  EXPECT_EQ(r[2].to_vector<double>(), (std::vector<double>{3, 4, 5}));
  EXPECT_TRUE(tensors_equal(xv, iota({2, 3})));
  // A second call with another shape reuses nothing it should not.
  std::vector<Tensor> r2 = f(iota({3, 1}), Tensor::from_vector<int64_t>({0}));
  EXPECT_EQ(r2[1].to_vector<double>(), (std::vector<double>{-1, -1, -1}));
  EXPECT_EQ(r[1].to_vector<double>(), (std::vector<double>{0, 1, -1, 3, 4, -1}));  // earlier result kept
  EXPECT_THROW(f(xv, Tensor::from_vector<int64_t>({3})), ValueError);
}

}  // namespace
}  // namespace tgc
