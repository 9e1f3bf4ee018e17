// ArangeLike (arange(x.shape[i]); ops/alloc/arange_like.h): the indices of a dim read on each
// call, Theano's negative log-likelihood with them, the Arange (a constant) it folds into where
// the dim is known, and the TypeError for any other symbolic stop.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "ops/core/node.h"
#include "support/graph_eval.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace test;

TEST(ArangeLike, TheIndicesOfADimReadOnEachCall) {
  Var x = matrix("x", DType::Float32);
  Var rows = arange(shape_of(x)[0]), cols = arange(shape_of(x)[-1]);
  EXPECT_EQ(op_name(rows), "ArangeLike{0}");
  EXPECT_EQ(op_name(cols), "ArangeLike{1}");
  EXPECT_EQ(rows.type(), Type(DType::Int64, {kUnknownDim}));
  Function f = function({x}, {rows, cols});
  std::vector<Tensor> r = f({Tensor::zeros(DType::Float32, {3, 2})});
  EXPECT_THAT(r[0].to_vector<int64_t>(), ElementsAre(0, 1, 2));
  EXPECT_THAT(r[1].to_vector<int64_t>(), ElementsAre(0, 1));
  r = f({Tensor::zeros(DType::Float32, {0, 4})});
  EXPECT_EQ(r[0].numel(), 0);
  EXPECT_THAT(r[1].to_vector<int64_t>(), ElementsAre(0, 1, 2, 3));
}

TEST(ArangeLike, TheanosNegativeLogLikelihoodAndItsGradient) {
  // -mean(log(p)[arange(y.shape[0]), y]), the deep learning tutorial's cost.
  Var p = matrix("p", DType::Float64);
  Var y = vector("y", DType::Int64);
  Var nll = -mean(log(p)[{arange(shape_of(y)[0]), y}]);
  Function f = function({p, y}, {nll, grad(nll, p)});
  Tensor pv = Tensor::from_vector<double>({0.5, 0.25, 0.25, 0.1, 0.8, 0.1}).reshape({2, 3});
  std::vector<Tensor> r = f({pv, Tensor::from_vector<int64_t>({0, 1})});
  EXPECT_NEAR(r[0].item<double>(), -(std::log(0.5) + std::log(0.8)) / 2, 1e-15);
  EXPECT_TRUE(tensors_allclose(r[1], Tensor::from_vector<double>({-1.0, 0, 0, 0, -0.625, 0}).reshape({2, 3}), 1e-15, 0));
}

TEST(ArangeLike, AKnownDimFoldsIntoAnArange) {
  Var x = tensor("x", DType::Float32, {4, kUnknownDim});
  Function f = function({x}, {arange(shape_of(x)[0])});
  // An Arange, which constant folding then computes once: nothing is left to run.
  EXPECT_THAT(f.toposort(), ::testing::IsEmpty());
  EXPECT_THAT(f({Tensor::zeros(DType::Float32, {4, 1})})[0].to_vector<int64_t>(), ElementsAre(0, 1, 2, 3));
}

TEST(ArangeLike, AnyOtherSymbolicStopIsATypeError) {
  Var n = scalar("n", DType::Int64);
  try {
    arange(n);
    FAIL() << "arange(n) of a free scalar was taken";
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("not a dim of a tensor"));
    EXPECT_THAT(e.what(), HasSubstr("shape_of(x)[i]"));
  }
  Var x = matrix("x");
  EXPECT_THROW(arange(shape_of(x)[0] + 1), TypeError);
}

}  // namespace
}  // namespace tgc
