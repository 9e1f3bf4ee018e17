// Tests of the grad() engine with small local ops that carry their own gradient rules (so
// the engine is tested apart from the op families' rules), and of SumToLike/StopGradient.
#include "compiler/grad.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/catch_error.h"

#include <cmath>
#include <tgc/tgc.h>

#include "ops/alloc/alloc.h"
#include "ops/core/apply.h"
#include "ops/core/node.h"
#include "ops/gradient/build.h"
#include "ops/gradient/sum_to_like.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;

// Elementwise float64 op: y = f(inputs...), applied over equal-shaped contiguous copies.
class Float64Op : public Op {
 public:
  std::string op_class() const override { return name(); }
  std::string user_name() const override { return name(); }
  std::vector<Type> infer_types(const std::vector<Type>& in) const override {
    for (const Type& t : in)
      if (t.dtype != DType::Float64) throw TypeError(name() + ": float64 only");
    return {in[0]};
  }
  std::vector<Shape> infer_shapes(const std::vector<Shape>& in) const override { return {in[0]}; }
  void perform(const std::vector<Tensor>& in, std::vector<Tensor>& out) const override {
    std::vector<Tensor> c;
    for (const Tensor& t : in) c.push_back(t.contiguous());
    Tensor& y = ensure_output(out[0], DType::Float64, c[0].shape());
    for (int64_t i = 0; i < y.numel(); ++i) {
      std::vector<double> args;
      for (const Tensor& t : c) args.push_back(t.data<double>()[i]);
      y.data<double>()[i] = f(args);
    }
  }
  virtual double f(const std::vector<double>& a) const = 0;
};

// y = c * x; dy = c * g.
class Scale final : public Float64Op {
 public:
  explicit Scale(double c) : c_(c) {}
  std::string name() const override { return "Scale{" + std::to_string(c_) + "}"; }
  double f(const std::vector<double>& a) const override { return c_ * a[0]; }
  std::vector<VarPtr> grad(const Node&, const std::vector<VarPtr>& g) const override {
    return {apply1(std::make_shared<Scale>(c_), {g[0]})};
  }
 private:
  double c_;
};
VarPtr scale(double c, const VarPtr& x) { return apply1(std::make_shared<Scale>(c), {x}); }

// y = a + b (same shapes); da = db = g.
class Add2 final : public Float64Op {
 public:
  std::string name() const override { return "Add2"; }
  double f(const std::vector<double>& a) const override { return a[0] + a[1]; }
  std::vector<VarPtr> grad(const Node&, const std::vector<VarPtr>& g) const override { return {g[0], g[0]}; }
};
VarPtr add2(const VarPtr& a, const VarPtr& b) { return apply1(std::make_shared<Add2>(), {a, b}); }

// y = a * b (same shapes): a product rule, so the gradient depends on the inputs.
class Mul2 final : public Float64Op {
 public:
  std::string name() const override { return "Mul2"; }
  double f(const std::vector<double>& a) const override { return a[0] * a[1]; }
  std::vector<VarPtr> grad(const Node& n, const std::vector<VarPtr>& g) const override {
    return {apply1(std::make_shared<Mul2>(), {g[0], n.inputs()[1]}),
            apply1(std::make_shared<Mul2>(), {g[0], n.inputs()[0]})};
  }
};
VarPtr mul2(const VarPtr& a, const VarPtr& b) { return apply1(std::make_shared<Mul2>(), {a, b}); }

// An identity without a gradient rule (Op's default).
class NoGrad final : public Float64Op {
 public:
  std::string name() const override { return "NoGrad"; }
  double f(const std::vector<double>& a) const override { return a[0]; }
};

// An identity whose rule returns a gradient of the wrong rank.
class BadGrad final : public Float64Op {
 public:
  std::string name() const override { return "BadGrad"; }
  double f(const std::vector<double>& a) const override { return a[0]; }
  std::vector<VarPtr> grad(const Node&, const std::vector<VarPtr>&) const override {
    return {Variable::constant(Tensor::scalar<double>(1.0))};
  }
};

// 0-d sum of a float64 tensor; dx = g broadcast to x's shape.
class SumAll final : public Op {
 public:
  std::string name() const override { return "SumAll"; }
  std::string op_class() const override { return "SumAll"; }
  std::string user_name() const override { return "sum_all"; }
  std::vector<Type> infer_types(const std::vector<Type>& in) const override { return {Type(in[0].dtype, {})}; }
  std::vector<Shape> infer_shapes(const std::vector<Shape>&) const override { return {Shape{}}; }
  void perform(const std::vector<Tensor>& in, std::vector<Tensor>& out) const override {
    double s = 0;
    for (double v : in[0].to_vector<double>()) s += v;
    ensure_output(out[0], DType::Float64, {}).data<double>()[0] = s;
  }
  std::vector<VarPtr> grad(const Node& n, const std::vector<VarPtr>& g) const override {
    return {apply1(std::make_shared<Fill>(), {n.inputs()[0], g[0]})};
  }
};
VarPtr sum_all(const VarPtr& x) { return apply1(std::make_shared<SumAll>(), {x}); }

VarPtr vec(const std::string& name) { return Variable::input(Type::unknown(DType::Float64, 1), name); }
Tensor t3(double a, double b, double c) { return Tensor::from_vector<double>({a, b, c}); }

// Evaluates `outs` at x = value through a compiled function.
std::vector<std::vector<double>> eval(const VarPtr& x, const Tensor& value, const std::vector<VarPtr>& outs) {
  std::vector<Var> o(outs.begin(), outs.end());
  Function f = function({Var(x)}, o);
  std::vector<std::vector<double>> r;
  for (const Tensor& t : f(value)) r.push_back(t.to_vector<double>());
  return r;
}

using test::catch_error;

TEST(Grad, SumsTheContributionsOfEveryPath) {
  VarPtr x = vec("x");
  VarPtr cost = sum_all(add2(scale(2, x), add2(scale(3, x), x)));  // 6x
  auto g = eval(x, t3(1, 2, 3), grad(cost, {x}));
  EXPECT_THAT(g[0], ::testing::ElementsAre(6.0, 6.0, 6.0));
}

TEST(Grad, ProductRuleUsesTheInputs) {
  VarPtr x = vec("x");
  VarPtr y = vec("y");
  VarPtr cost = sum_all(mul2(mul2(x, x), y));  // sum(x^2 y): dx = 2xy, dy = x^2
  std::vector<VarPtr> g = grad(cost, {x, y});
  Function f = function({Var(x), Var(y)}, {Var(g[0]), Var(g[1])});
  auto r = f(t3(1, 2, 3), t3(4, 5, 6));
  EXPECT_THAT(r[0].to_vector<double>(), ::testing::ElementsAre(8.0, 20.0, 36.0));
  EXPECT_THAT(r[1].to_vector<double>(), ::testing::ElementsAre(1.0, 4.0, 9.0));
}

TEST(Grad, OfTheCostItselfIsOne) {
  VarPtr c = Variable::input(Type(DType::Float64, {}), "c");
  std::vector<VarPtr> g = grad(c, {c});
  ASSERT_EQ(g[0]->kind(), Variable::Kind::Constant);
  EXPECT_EQ(g[0]->constant_value().item<double>(), 1.0);
}

TEST(Grad, ConsiderConstantStopsTheFlow) {
  VarPtr x = vec("x");
  VarPtr h = scale(2, x);
  VarPtr cost = sum_all(add2(h, scale(3, x)));
  GradOptions options;
  options.consider_constant = {h};
  auto g = eval(x, t3(1, 2, 3), grad(cost, {x}, options));
  EXPECT_THAT(g[0], ::testing::ElementsAre(3.0, 3.0, 3.0));
  // h itself is treated as a constant: nothing reaches it.
  Error e = catch_error<InputError>([&] { grad(cost, {h}, options); });
  EXPECT_THAT(e.what(), HasSubstr("only through consider_constant/stop_gradient"));
}

TEST(Grad, StopGradientStopsTheFlow) {
  Var x = vector("x", DType::Float64);
  Var h = stop_gradient(Var(scale(2, x.ptr())));
  VarPtr cost = sum_all(add2(h.ptr(), scale(3, x.ptr())));
  auto g = eval(x.ptr(), t3(1, 2, 3), grad(cost, {x.ptr()}));
  EXPECT_THAT(g[0], ::testing::ElementsAre(3.0, 3.0, 3.0));
  // Evaluated, stop_gradient is the identity; the gradient w.r.t. its output still flows.
  auto v = eval(x.ptr(), t3(1, 2, 3), {h.ptr(), grad(cost, {h.ptr()})[0]});
  EXPECT_THAT(v[0], ::testing::ElementsAre(2.0, 4.0, 6.0));
  EXPECT_THAT(v[1], ::testing::ElementsAre(1.0, 1.0, 1.0));
  // Only a stopped path: disconnected.
  Error e = catch_error<InputError>([&] { grad(sum_all(h.ptr()), {x.ptr()}); });
  EXPECT_THAT(e.what(), HasSubstr("'x' only through consider_constant/stop_gradient"));
}

TEST(Grad, KnownGradsSeedTheWalk) {
  VarPtr x = vec("x");
  VarPtr y = scale(2, x);
  GradOptions options;
  options.known_grads = {{y, Variable::constant(t3(1, 2, 3))}};
  auto g = eval(x, t3(0, 0, 0), grad(nullptr, {x}, options));
  EXPECT_THAT(g[0], ::testing::ElementsAre(2.0, 4.0, 6.0));
  // With a cost as well, both contributions add up.
  VarPtr cost = sum_all(scale(5, x));
  g = eval(x, t3(0, 0, 0), grad(cost, {x}, options));
  EXPECT_THAT(g[0], ::testing::ElementsAre(7.0, 9.0, 11.0));
  // A known gradient of the wrong dtype is the user's error.
  options.known_grads = {{y, Variable::constant(Tensor::from_vector<float>({1, 2, 3}))}};
  Error e = catch_error<TypeError>([&] { grad(nullptr, {x}, options); });
  EXPECT_THAT(e.what(), HasSubstr("known gradient of"));
}

TEST(Grad, DisconnectedInputsPolicies) {
  VarPtr x = vec("x");
  VarPtr z = vec("z");
  VarPtr cost = sum_all(scale(2, x));
  Error e = catch_error<InputError>([&] { grad(cost, {x, z}); });
  EXPECT_THAT(e.what(), HasSubstr("cost does not depend on 'z'"));
  EXPECT_THAT(e.hint(), HasSubstr("disconnected_inputs"));

  GradOptions warn;
  warn.disconnected_inputs = DisconnectedInputs::Warn;
  ::testing::internal::CaptureStderr();
  std::vector<VarPtr> g = grad(cost, {x, z}, warn);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("cost does not depend on 'z'"));
  Function f = function({Var(x), Var(z)}, {Var(g[1])});
  EXPECT_THAT(f(t3(1, 2, 3), Tensor::from_vector<double>({7, 8}))[0].to_vector<double>(),
              ::testing::ElementsAre(0.0, 0.0));

  GradOptions ignore;
  ignore.disconnected_inputs = DisconnectedInputs::Ignore;
  ::testing::internal::CaptureStderr();
  g = grad(cost, {z}, ignore);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(g[0]->type().dtype, DType::Float64);
  EXPECT_EQ(g[0]->type().ndim(), 1);
}

TEST(Grad, BoolPathsCarryNoGradient) {
  // cost = sum(float64(x > 0) * 1): x reaches the cost only through a bool value, so its
  // gradient is zero (connected, so no disconnected error) and no rule on the way is asked.
  VarPtr x = vec("x");
  VarPtr positive = gradient::ew(ScalarOpKind::Gt, {x, gradient::scalar_like(0.0, x)});
  VarPtr cost = sum_all(apply1(std::make_shared<NoGrad>(), {gradient::cast(positive, DType::Float64)}));
  auto g = eval(x, t3(-1, 2, 3), grad(cost, {x}));
  EXPECT_THAT(g[0], ::testing::ElementsAre(0.0, 0.0, 0.0));
}

TEST(Grad, IntegerWrtIsATypeError) {
  VarPtr i = Variable::input(Type::unknown(DType::Int64, 1), "i");
  VarPtr x = vec("x");
  Error e = catch_error<TypeError>([&] { grad(sum_all(x), {x, i}); });
  EXPECT_THAT(e.what(), HasSubstr("cannot differentiate with respect to 'i' (int64 vector"));
}

TEST(Grad, MissingRuleNamesTheOpAndThePath) {
  VarPtr x = vec("x");
  VarPtr hidden = apply1(std::make_shared<NoGrad>(), {scale(2, x)});
  hidden->set_name("h");
  VarPtr cost = sum_all(hidden);
  Error e = catch_error<TypeError>([&] { grad(cost, {x}); });
  EXPECT_THAT(e.what(), HasSubstr("NoGrad has no gradient"));
  EXPECT_THAT(e.where(), HasSubstr("h = "));
  EXPECT_THAT(e.where(), HasSubstr("on the path from the cost to 'x'"));
  // Not on the way to wrt: never asked for its rule.
  VarPtr y = vec("y");
  VarPtr cost2 = sum_all(add2(hidden, y));
  EXPECT_NO_THROW(grad(cost2, {y}));
}

TEST(Grad, WrongGradientTypeIsAnInternalError) {
  VarPtr x = vec("x");
  VarPtr cost = sum_all(apply1(std::make_shared<BadGrad>(), {x}));
  Error e = catch_error<InternalError>([&] { grad(cost, {x}); });
  EXPECT_THAT(e.what(), HasSubstr("gradient rule of BadGrad returned float64 scalar"));
}

TEST(Grad, CostMustBeAFloatScalar) {
  VarPtr x = vec("x");
  Error e = catch_error<TypeError>([&] { grad(scale(2, x), {x}); });
  EXPECT_THAT(e.what(), HasSubstr("the cost must be a scalar"));
  EXPECT_THAT(e.hint(), HasSubstr("sum(y)"));
  VarPtr n = Variable::input(Type(DType::Int32, {}), "n");
  e = catch_error<TypeError>([&] { grad(n, {x}); });
  EXPECT_THAT(e.what(), HasSubstr("must be a float scalar"));
}

TEST(Grad, DeepChainNeedsNoRecursion) {
  VarPtr x = vec("x");
  VarPtr y = x;
  const int depth = 5000;  // deep enough to overflow a recursive walk
  for (int i = 0; i < depth; ++i) y = scale(i % 2 ? 1.0001 : 1.0, y);
  std::vector<VarPtr> g = grad(sum_all(y), {x});
  // The gradient is one Scale per link of the chain, over the Fill SumAll's rule made.
  int links = 0;
  Variable* v = g[0].get();
  while (v->kind() == Variable::Kind::Result && v->owner()->op().name().rfind("Scale", 0) == 0) {
    v = v->owner()->inputs()[0].get();
    ++links;
  }
  EXPECT_EQ(links, depth);
  ASSERT_EQ(v->kind(), Variable::Kind::Result);
  EXPECT_EQ(v->owner()->op().name(), "Fill");
  Function f = function({Var(x)}, {Var(g[0])});
  EXPECT_NEAR(f(t3(1, 2, 3))[0].to_vector<double>()[2], std::pow(1.0001, depth / 2), 1e-9);
}

TEST(SumToLike, SumsBroadcastDims) {
  Tensor g = Tensor::from_vector<double>({1, 2, 3, 4, 5, 6}, {2, 3});
  SumToLike op;
  auto run = [&](const Tensor& in, const Shape& like) {
    std::vector<Tensor> out(1);
    op.perform({in, Tensor::zeros(DType::Float64, like)}, out);
    EXPECT_EQ(out[0].shape(), like);
    return out[0].to_vector<double>();
  };
  EXPECT_THAT(run(g, {1, 3}), ::testing::ElementsAre(5, 7, 9));
  EXPECT_THAT(run(g, {3}), ::testing::ElementsAre(5, 7, 9));
  EXPECT_THAT(run(g, {2, 1}), ::testing::ElementsAre(6, 15));
  EXPECT_THAT(run(g, {}), ::testing::ElementsAre(21));
  EXPECT_THAT(run(g, {2, 3}), ::testing::ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_THAT(run(g.transpose(), {1, 2}), ::testing::ElementsAre(6, 15));  // strided input
  EXPECT_THAT(run(Tensor::zeros(DType::Float64, {0, 3}), {1, 3}), ::testing::ElementsAre(0, 0, 0));
  std::vector<Tensor> out(1);
  op.perform({Tensor::from_vector<float>({0.5f, 0.25f}), Tensor::zeros(DType::Float32, {1})}, out);
  EXPECT_EQ(out[0].dtype(), DType::Float32);
  EXPECT_EQ(out[0].item<float>(), 0.75f);
  try {
    op.infer_shapes({{2, 3}, {2, 2}});
    ADD_FAILURE();
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot be summed to shape (2, 2)"));
  }
  EXPECT_THROW(op.infer_types({Type(DType::Int32, {3}), Type(DType::Int32, {3})}), TypeError);
}

TEST(SumToLike, BuildHelperSkipsItWhenShapesAreKnownEqual) {
  VarPtr g = Variable::input(Type(DType::Float64, {2, 3}), "g");
  VarPtr known = Variable::input(Type(DType::Float64, {2, 3}), "a");
  VarPtr row = Variable::input(Type(DType::Float64, {1, 3}), "r");
  VarPtr unknown = Variable::input(Type::unknown(DType::Float64, 2), "u");
  VarPtr ints = Variable::input(Type::unknown(DType::Int32, 2), "i");
  EXPECT_EQ(gradient::sum_to_like(g, known), g);
  VarPtr s = gradient::sum_to_like(g, row);
  ASSERT_EQ(s->kind(), Variable::Kind::Result);
  EXPECT_EQ(s->owner()->op().name(), "SumToLike");
  EXPECT_EQ(s->type(), Type(DType::Float64, {1, 3}));
  // An unknown dim may be 1 at run time: the sum stays.
  EXPECT_NE(gradient::sum_to_like(g, unknown), g);
  EXPECT_EQ(gradient::sum_to_like(g, ints), nullptr);
  VarPtr f32 = Variable::input(Type(DType::Float32, {2, 3}), "f");
  EXPECT_EQ(gradient::sum_to_like(g, f32)->type(), Type(DType::Float32, {2, 3}));
}

}  // namespace
}  // namespace tgc
