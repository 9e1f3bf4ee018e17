// Gradient rules of the reduce family, checked numerically with verify_grad (float64,
// random points) over single, multiple, negative and all axes with and without keepdims,
// plus hand-computed values for the cases numbers alone do not show: max/min ties, prod
// with zeros, the runtime count of mean, and null gradients for integer results.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <tgc/tgc.h>
#include <tgc/grad.h>

#include "ops/core/apply.h"
#include "ops/reduce/arg_reduce.h"
#include "ops/reduce/careduce.h"
#include "ops/reduce/mean.h"
#include "ops/reduce/reduce_count.h"
#include "runtime/random.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;

Tensor randn(const Shape& shape, int64_t seed = 0) { return RandomState(seed).randn(shape); }

// d sum(f(x)) / dx at x, compiled and run.
Tensor grad_of(const Var& x, const Var& cost, const Tensor& at) {
  Function f = function({x}, {grad(cost, x)});
  return f(at).at(0);
}

// --- verify_grad over many axis sets ------------------------------------------------------

using Reducer = Var (*)(const Var&, Axes, bool);
struct AxesCase {
  Axes axes;
  bool keepdims;
};

const std::vector<AxesCase>& axis_cases() {
  static const std::vector<AxesCase> cases = {
      {Axes{}, false}, {Axes{}, true},          {Axes{0}, false},    {Axes{1}, true},
      {Axes{-1}, false}, {Axes{0, 2}, false},   {Axes{-3, -1}, true}, {Axes{0, 1, 2}, false},
      {Axes{1, 2}, true}};
  return cases;
}

void check_all_axes(Reducer reducer, const Tensor& point) {
  for (const AxesCase& c : axis_cases()) {
    std::string axes = "all";
    if (c.axes.axes) {
      axes = "";
      for (int a : *c.axes.axes) axes += std::to_string(a) + " ";
    }
    SCOPED_TRACE("axes " + axes + (c.keepdims ? "keepdims" : ""));
    EXPECT_NO_THROW(verify_grad([&](const std::vector<Var>& v) { return reducer(v[0], c.axes, c.keepdims); }, {point}));
  }
}

TEST(ReduceGrad, SumOverEveryAxisSet) { check_all_axes(&sum, randn({2, 3, 4})); }
TEST(ReduceGrad, MeanOverEveryAxisSet) { check_all_axes(&mean, randn({2, 3, 4}, 1)); }
TEST(ReduceGrad, MaxOverEveryAxisSet) { check_all_axes(&max, randn({2, 3, 4}, 2)); }
TEST(ReduceGrad, MinOverEveryAxisSet) { check_all_axes(&min, randn({2, 3, 4}, 3)); }
TEST(ReduceGrad, ProdOverEveryAxisSet) {
  // Values in [0.5, 1.5) keep the products of 24 elements well scaled.
  check_all_axes(&prod, RandomState(4).uniform(0.5, 1.5, {2, 3, 4}));
}
TEST(ReduceGrad, LogSumExpOverEveryAxisSet) { check_all_axes(&logsumexp, randn({2, 3, 4}, 5)); }

TEST(ReduceGrad, VectorsScalarsAndMatrices) {
  for (Reducer r : {&sum, &mean, &max, &min, &prod, &logsumexp}) {
    EXPECT_NO_THROW(verify_grad([&](const std::vector<Var>& v) { return r(v[0], Axes{}, false); }, {randn({5}, 6)}));
    EXPECT_NO_THROW(verify_grad([&](const std::vector<Var>& v) { return r(v[0], Axes{}, false); },
                                {Tensor::scalar(0.7)}));
    EXPECT_NO_THROW(verify_grad([&](const std::vector<Var>& v) { return r(v[0], Axes{0}, true); }, {randn({3, 2}, 7)}));
  }
}

TEST(ReduceGrad, ReductionInsideAnExpression) {
  // Sum of a product: the rule composes with Elemwise's on both operands.
  EXPECT_NO_THROW(verify_grad([](const std::vector<Var>& v) { return sum(v[0] * v[1], Axes{1}); },
                              {randn({3, 4}, 8), randn({3, 4}, 9)}));
  // mean(x) - max(x): both reductions of the same x.
  EXPECT_NO_THROW(verify_grad([](const std::vector<Var>& v) { return mean(v[0], Axes{0}) - max(v[0], Axes{0}); },
                              {randn({4, 3}, 10)}));
}

TEST(ReduceGrad, EmptyInputHasAnEmptyGradient) {
  Var x = matrix("x", DType::Float64);
  Tensor g = grad_of(x, sum(x, Axes{1}).sum() + prod(x, Axes{0}).sum(), Tensor::zeros(DType::Float64, {0, 3}));
  EXPECT_EQ(g.shape(), (Shape{0, 3}));
}

TEST(ReduceGrad, GradientGraphsAreDifferentiableToo) {
  // Second order: the rules' own graphs (Fill, DimShuffle, ReduceCount, Elemwise) have
  // gradients, so hessian-style uses work. d/dx of d sum(x^2 w)/dx etc. checked numerically.
  auto second = [](Var (*cost)(const Var&)) {
    return [cost](const std::vector<Var>& v) { return grad(cost(v[0]), v[0]); };
  };
  EXPECT_NO_THROW(verify_grad(second([](const Var& x) { return (sum(x, Axes{0}) * sum(x, Axes{0})).sum(); }),
                              {randn({3, 2}, 11)}));
  EXPECT_NO_THROW(verify_grad(second([](const Var& x) { return (mean(x, Axes{1}) * mean(x, Axes{1})).sum(); }),
                              {randn({2, 3}, 12)}));
  EXPECT_NO_THROW(verify_grad(second([](const Var& x) { return logsumexp(x, Axes{1}).sum(); }), {randn({2, 3}, 13)}));
  EXPECT_NO_THROW(verify_grad(second([](const Var& x) { return prod(x, Axes{0}).sum(); }),
                              {RandomState(14).uniform(0.5, 1.5, {3, 2})}));
}

// --- values that a random check does not reach ----------------------------------------

TEST(ReduceGrad, SumGradientIsOnesOfTheRuntimeShape) {
  Var x = matrix("x", DType::Float64);
  Tensor g = grad_of(x, sum(x, Axes{0}).sum(), randn({2, 3}));
  EXPECT_EQ(g.shape(), (Shape{2, 3}));
  EXPECT_EQ(g.to_vector<double>(), std::vector<double>(6, 1.0));
}

TEST(ReduceGrad, MaxTiesAllReceiveTheGradient) {
  // Theano's rule: g goes to every element equal to the max (here both 3s of row 0).
  Var x = matrix("x", DType::Float64);
  Tensor at = Tensor::from_vector<double>({3, 1, 3, 0, 5, 2}, {2, 3});
  Tensor g = grad_of(x, (max(x, Axes{1}) * constant(Tensor::from_vector<double>({10, 20}, {2}))).sum(), at);
  EXPECT_EQ(g.to_vector<double>(), (std::vector<double>{10, 0, 10, 0, 20, 0}));
  Tensor gmin = grad_of(x, min(x, Axes{0}).sum(), Tensor::from_vector<double>({1, 1, 3, 1, 5, 2}, {2, 3}));
  EXPECT_EQ(gmin.to_vector<double>(), (std::vector<double>{1, 1, 0, 1, 0, 1}));
}

TEST(ReduceGrad, ProdWithZeros) {
  Var x = matrix("x", DType::Float64);
  // Row 0: no zero -> prod/x_i. Row 1: one zero -> the product of the others at the zero,
  // 0 elsewhere. Row 2: two zeros -> 0 everywhere.
  Tensor at = Tensor::from_vector<double>({2, 3, 4, 2, 0, 5, 0, 7, 0}, {3, 3});
  Tensor g = grad_of(x, prod(x, Axes{1}).sum(), at);
  EXPECT_EQ(g.to_vector<double>(), (std::vector<double>{12, 8, 6, 0, 10, 0, 0, 0, 0}));
  // Numerically too: prod is linear in each element, so differences are exact at zeros.
  EXPECT_NO_THROW(verify_grad([](const std::vector<Var>& v) { return prod(v[0], Axes{1}); }, {at}));
  EXPECT_NO_THROW(verify_grad([](const std::vector<Var>& v) { return prod(v[0]); },
                              {Tensor::from_vector<double>({1.5, 0, -2, 3}, {4})}));
}

TEST(ReduceGrad, MeanDividesByTheRuntimeCount) {
  // The dims of x are unknown when the graph is built, so the count is read at run time:
  // one compiled gradient serves both shapes.
  Var x = matrix("x", DType::Float64);
  Function f = function({x}, {grad(mean(x, Axes{0}).sum(), x)});
  EXPECT_EQ(f(randn({4, 2})).at(0).to_vector<double>(), std::vector<double>(8, 0.25));
  EXPECT_EQ(f(randn({5, 1})).at(0).to_vector<double>(), std::vector<double>(5, 0.2));
}

TEST(ReduceGrad, MeanOfStaticDimsUsesAConstantCount) {
  Var x = tensor("x", DType::Float32, {4, 5});
  Var gx = grad(mean(x), x);
  EXPECT_EQ(gx.ptr()->type(), x.ptr()->type());
  Function f = function({x}, {gx});
  for (float v : f(Tensor::zeros(DType::Float32, {4, 5})).at(0).to_vector<float>()) EXPECT_FLOAT_EQ(v, 0.05f);
  for (const std::string& node : f.toposort()) EXPECT_THAT(node, ::testing::Not(HasSubstr("ReduceCount")));
}

TEST(ReduceGrad, GradientKeepsTheInputsFloat32Type) {
  Var x = matrix("x", DType::Float32);
  for (Var cost : {sum(x), prod(x), max(x, Axes{0}).sum(), mean(x, Axes{1}).sum(), logsumexp(x, Axes{0}).sum()}) {
    Var gx = grad(cost, x);
    EXPECT_EQ(gx.ptr()->type().dtype, DType::Float32);
    EXPECT_EQ(gx.ptr()->type().ndim(), 2);
  }
}

// --- non-differentiable results ----------------------------------------------------------

// The rule's answer for a one-node graph op(x) with a given output gradient.
std::vector<VarPtr> rule(std::shared_ptr<const Op> op, const VarPtr& x) {
  VarPtr y = apply1(op, {x});
  VarPtr g = Variable::input(Type(y->type().dtype, y->type().shape), "g");
  return y->owner()->op().grad(*y->owner(), {g});
}

TEST(ReduceGrad, IntegerAndBoolResultsHaveNullGradients) {
  VarPtr xf = matrix("x", DType::Float64).ptr();
  VarPtr xi = matrix("i", DType::Int32).ptr();
  EXPECT_EQ(rule(std::make_shared<ArgReduce>(ArgKind::Argmax, 1, false), xf).at(0), nullptr);
  EXPECT_EQ(rule(std::make_shared<ArgReduce>(ArgKind::Argmin, std::nullopt, false), xf).at(0), nullptr);
  EXPECT_EQ(rule(std::make_shared<CAReduce>(ReduceKind::All, std::nullopt, false), xf).at(0), nullptr);
  EXPECT_EQ(rule(std::make_shared<CAReduce>(ReduceKind::Any, ReduceAxes(std::vector<int>{0}), true), xf).at(0), nullptr);
  // Integer inputs are not differentiable either, whatever the reduction.
  for (ReduceKind k : {ReduceKind::Sum, ReduceKind::Prod, ReduceKind::Max, ReduceKind::Min})
    EXPECT_EQ(rule(std::make_shared<CAReduce>(k, std::nullopt, false), xi).at(0), nullptr);
  EXPECT_EQ(rule(std::make_shared<Mean>(std::nullopt, false, DType::Float64), xi).at(0), nullptr);
  // A float input does get one (so the nulls above are the rule's choice, not an accident).
  EXPECT_NE(rule(std::make_shared<CAReduce>(ReduceKind::Sum, std::nullopt, false), xf).at(0), nullptr);
}

TEST(ReduceGrad, ArgmaxContributesNothingToTheGradient) {
  // cost = sum(x) + argmax(x): the index is a step function, so only sum's ones remain.
  Var x = vector("x", DType::Float64);
  Var cost = x.sum() + argmax(x).astype(DType::Float64);
  Tensor g = grad_of(x, cost, Tensor::from_vector<double>({1, 4, 2}, {3}));
  EXPECT_EQ(g.to_vector<double>(), (std::vector<double>{1, 1, 1}));
}

TEST(ReduceGrad, GradOfAnIntegerCostIsAnError) {
  Var x = vector("x", DType::Float64);
  try {
    grad(argmax(x), x);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("int64"));
  }
}

// --- ReduceCount ------------------------------------------------------------------------

TEST(ReduceCount, CountsTheReducedElementsOfTheRuntimeShape) {
  ReduceCount all(std::nullopt, DType::Float64), some(ReduceAxes(std::vector<int>{0, 2}), DType::Float32);
  EXPECT_EQ(all.name(), "ReduceCount{dtype=float64}");
  EXPECT_EQ(some.name(), "ReduceCount{axis=[0, 2], dtype=float32}");
  Tensor x = Tensor::zeros(DType::Int8, {2, 3, 5});
  EXPECT_EQ(test::run_op(all, {x}).item<double>(), 30.0);
  Tensor c = test::run_op(some, {x});
  EXPECT_EQ(c.dtype(), DType::Float32);
  EXPECT_EQ(c.shape(), Shape{});
  EXPECT_EQ(c.item<float>(), 10.0f);
  EXPECT_EQ(test::run_op(all, {Tensor::zeros(DType::Float64, {0, 4})}).item<double>(), 0.0);
  try {
    some.infer_types({Type(DType::Float64, {3, 4})});
    FAIL() << "expected a ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("axis 2 is out of bounds for a 2-d tensor"));
  }
}

}  // namespace
}  // namespace tgc
