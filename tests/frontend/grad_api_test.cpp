// Tests of the public differentiation API: grad/stop_gradient on Vars, Lop, jacobian,
// hessian, and verify_grad (that it accepts right gradients and catches wrong ones).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <tgc/tgc.h>

#include "ops/core/apply.h"
#include "ops/core/node.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// y = x^3 elementwise (float64), with a correct rule (3 x^2 g) or a wrong one (2 x^2 g),
// built from test ops only so verify_grad is tested apart from the op families.
class Cube final : public Op {
 public:
  explicit Cube(bool wrong) : wrong_(wrong) {}
  std::string name() const override { return wrong_ ? "CubeWrong" : "Cube"; }
  std::string op_class() const override { return "Cube"; }
  std::string user_name() const override { return "cube"; }
  std::vector<Type> infer_types(const std::vector<Type>& in) const override { return {in[0]}; }
  std::vector<Shape> infer_shapes(const std::vector<Shape>& in) const override { return {in[0]}; }
  void perform(const std::vector<Tensor>& in, std::vector<Tensor>& out) const override {
    Tensor x = in[0].contiguous();
    Tensor& y = ensure_output(out[0], DType::Float64, x.shape());
    for (int64_t i = 0; i < x.numel(); ++i) y.data<double>()[i] = std::pow(x.data<double>()[i], 3);
  }
  std::vector<VarPtr> grad(const Node& n, const std::vector<VarPtr>& g) const override {
    const Var x(n.inputs()[0]);
    return {(Var(g[0]) * x * x * (wrong_ ? 2.0 : 3.0)).ptr()};
  }

 private:
  bool wrong_;
};
Var cube(const Var& x, bool wrong = false) { return Var(apply1(std::make_shared<Cube>(wrong), {x.ptr()})); }

Tensor v64(std::vector<double> v) { return Tensor::from_vector<double>(v); }

TEST(GradApi, GradOfVars) {
  Var x = vector("x", DType::Float64);
  Var w = vector("w", DType::Float64);
  Var cost = sum(cube(x) * w);
  std::vector<Var> g = grad(cost, {x, w});
  Function f = function({x, w}, g);
  auto r = f(v64({1, 2}), v64({3, 4}));
  EXPECT_THAT(r[0].to_vector<double>(), ElementsAre(9.0, 48.0));  // 3 x^2 w
  EXPECT_THAT(r[1].to_vector<double>(), ElementsAre(1.0, 8.0));   // x^3
  Var gx = grad(cost, x);
  EXPECT_EQ(gx.type(), Type(DType::Float64, {kUnknownDim}));
}

TEST(GradApi, StopGradient) {
  Var x = vector("x", DType::Float64);
  Var cost = sum(cube(x) + stop_gradient(cube(x)) * 10.0);
  Function f = function({x}, {cost, grad(cost, x)});
  auto r = f(v64({2}));
  EXPECT_EQ(r[0].item<double>(), 88.0);
  EXPECT_THAT(r[1].to_vector<double>(), ElementsAre(12.0));
}

TEST(GradApi, LopIsAVectorJacobianProduct) {
  Var x = vector("x", DType::Float64);
  Var v = vector("v", DType::Float64);
  std::vector<Var> l = Lop(cube(x), {x}, v);
  Function f = function({x, v}, l);
  EXPECT_THAT(f(v64({1, 2}), v64({5, 7}))[0].to_vector<double>(), ElementsAre(15.0, 84.0));
}

TEST(GradApi, JacobianOfAStaticVector) {
  Var x = tensor("x", DType::Float64, {3});
  Var j = jacobian(cube(x), x);
  Function f = function({x}, {j});
  Tensor r = f(v64({1, 2, 3}))[0];
  ASSERT_EQ(r.shape(), (Shape{3, 3}));
  EXPECT_THAT(r.to_vector<double>(), ElementsAre(3, 0, 0, 0, 12, 0, 0, 0, 27));
}

TEST(GradApi, JacobianNeedsAStaticLength) {
  Var x = vector("x", DType::Float64);
  try {
    jacobian(cube(x), x);
    ADD_FAILURE();
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("length of y"));
    EXPECT_THAT(e.hint(), HasSubstr("static length"));
  }
  Var m = matrix("m", DType::Float64);
  EXPECT_THROW(jacobian(m, m), TypeError);
}

TEST(GradApi, HessianOfACubicSum) {
  // cost = sum(x^3) + x0 * x1: H = diag(6x) + [[0,1],[1,0]].
  Var x = tensor("x", DType::Float64, {2});
  Var cost = sum(x * x * x) + x[0] * x[1];
  Var h = hessian(cost, x);
  Function f = function({x}, {h});
  Tensor r = f(v64({2, 5}))[0];
  ASSERT_EQ(r.shape(), (Shape{2, 2}));
  EXPECT_THAT(r.to_vector<double>(), ElementsAre(12, 1, 1, 30));
}

TEST(GradApi, HessianOfALinearCostIsZero) {
  Var x = tensor("x", DType::Float64, {2});
  Function f = function({x}, {hessian(sum(x * 3.0), x)});
  EXPECT_THAT(f(v64({2, 5}))[0].to_vector<double>(), ElementsAre(0, 0, 0, 0));
}

TEST(VerifyGrad, AcceptsACorrectRule) {
  RandomState rng(1);
  EXPECT_NO_THROW(verify_grad([](const std::vector<Var>& v) { return cube(v[0]); },
                              {rng.uniform(-2, 2, {3, 4})}));
  // Several inputs, one of them unused (its gradient is zero, as the numeric one).
  EXPECT_NO_THROW(verify_grad([](const std::vector<Var>& v) { return cube(v[0]) * v[1]; },
                              {rng.uniform(-2, 2, {5}), rng.uniform(-2, 2, {5}), rng.uniform(-2, 2, {2})}));
}

TEST(VerifyGrad, CatchesAWrongRule) {
  RandomState rng(2);
  try {
    verify_grad([](const std::vector<Var>& v) { return v[0] + cube(v[1], /*wrong=*/true); },
                {rng.uniform(1, 2, {3}), rng.uniform(1, 2, {2, 3})});
    ADD_FAILURE() << "verify_grad accepted a wrong gradient";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("input 1 element ("));
    EXPECT_THAT(e.what(), HasSubstr("analytic"));
    EXPECT_THAT(e.what(), HasSubstr("numeric"));
    EXPECT_THAT(e.what(), HasSubstr("max abs error"));
  }
}

TEST(VerifyGrad, RejectsNonFloat64) {
  EXPECT_THROW(verify_grad([](const std::vector<Var>& v) { return v[0]; },
                           {Tensor::from_vector<float>({1, 2})}),
               TypeError);
  EXPECT_THROW(verify_grad([](const std::vector<Var>& v) { return cast(v[0], DType::Float32); }, {v64({1})}),
               TypeError);
}

}  // namespace
}  // namespace tgc
