// ShapeOf (x.shape; ops/shape/shape_of.h): its type, its value per call for inputs of unknown
// shape, its use in arithmetic and gradients (no gradient flows through a shape), and the
// constant it folds into where the compiler knows the shape.
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

TEST(ShapeOf, IsAnInt64VectorOfTheRank) {
  Var x = tensor("x", DType::Float32, {kUnknownDim, 3, kUnknownDim});
  Var s = shape_of(x);
  EXPECT_EQ(op_name(s), "Shape");
  EXPECT_EQ(s.type(), Type(DType::Int64, {3}));
  EXPECT_THAT(eval(s, {{x, iota({2, 3, 4}).astype(DType::Float32)}}).to_vector<int64_t>(), ElementsAre(2, 3, 4));
  EXPECT_EQ(shape_of(scalar("c")).type(), Type(DType::Int64, {0}));
}

TEST(ShapeOf, FollowsEachCallsArgument) {
  Var x = matrix("x", DType::Float64);
  // A mean over rows written by hand, as Theano code does: sum / x.shape[0].
  Function f = function({x}, {shape_of(x), sum(x, {0}) / cast(shape_of(x)[0], DType::Float64)});
  std::vector<Tensor> r = f({Tensor::from_vector<double>({1, 2, 3, 4, 5, 6}).reshape({3, 2})});
  EXPECT_THAT(r[0].to_vector<int64_t>(), ElementsAre(3, 2));
  EXPECT_THAT(r[1].to_vector<double>(), ElementsAre(3, 4));
  r = f({Tensor::from_vector<double>({1, 2}).reshape({1, 2})});
  EXPECT_THAT(r[0].to_vector<int64_t>(), ElementsAre(1, 2));
  EXPECT_THAT(r[1].to_vector<double>(), ElementsAre(1, 2));
}

TEST(ShapeOf, NoGradientFlowsThroughAShape) {
  Var x = vector("x", DType::Float64);
  Var cost = sum(x * 2) / cast(shape_of(x)[0], DType::Float64);
  Function f = function({x}, {grad(cost, x)});
  EXPECT_THAT(f({Tensor::from_vector<double>({5, 7, 9, 11})})[0].to_vector<double>(), ElementsAre(0.5, 0.5, 0.5, 0.5));
}

TEST(ShapeOf, AKnownShapeFoldsIntoAConstant) {
  Var x = tensor("x", DType::Float32, {4, 5});
  Shared w = shared(Tensor::zeros(DType::Float32, {7, 2}), "w");  // a shape fact of the function
  Var unknown = vector("v", DType::Float32);
  Function f = function({x, unknown}, {shape_of(x), shape_of(w), shape_of(unknown)});
  const std::string graph = graph_text(f);
  // Only the vector of unknown length keeps its Shape node.
  size_t shapes = 0;
  for (size_t at = graph.find("Shape"); at != std::string::npos; at = graph.find("Shape", at + 1)) ++shapes;
  EXPECT_EQ(shapes, 1u) << graph;
  std::vector<Tensor> r = f({Tensor::zeros(DType::Float32, {4, 5}), Tensor::zeros(DType::Float32, {3})});
  EXPECT_THAT(r[0].to_vector<int64_t>(), ElementsAre(4, 5));
  EXPECT_THAT(r[1].to_vector<int64_t>(), ElementsAre(7, 2));
  EXPECT_THAT(r[2].to_vector<int64_t>(), ElementsAre(3));
}

}  // namespace
}  // namespace tgc
