// grad() differentiates the stabilized copy of the cost: the gradients are finite where the
// cost as written saturates, read the user's own inputs and shared variables, and come out
// as written when the options name intermediate variables, when GradOptions::stabilize is
// off, or when the global config turns the optimizer or the stabilize pass off. Gradients
// are evaluated node by node with each op's perform (no optimizer involved).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <unordered_set>

#include <tgc/tgc.h>

#include "support/graph_eval.h"

namespace tgc {
namespace {

constexpr DType f64 = DType::Float64;

// The roots (variables no node produces) of v's expression.
std::unordered_set<const Variable*> roots_of(const Var& v) {
  std::unordered_set<const Variable*> roots, seen;
  std::vector<const Variable*> stack{v.ptr().get()};
  while (!stack.empty()) {
    const Variable* u = stack.back();
    stack.pop_back();
    if (!seen.insert(u).second) continue;
    if (!u->owner()) {
      roots.insert(u);
      continue;
    }
    for (const VarPtr& in : u->owner()->inputs()) stack.push_back(in.get());
  }
  return roots;
}

// The op names of v's expression.
std::vector<std::string> ops_of(const Var& v) {
  std::vector<std::string> names;
  std::unordered_set<const Node*> seen;
  std::vector<const Variable*> stack{v.ptr().get()};
  while (!stack.empty()) {
    const Variable* u = stack.back();
    stack.pop_back();
    if (!u->owner() || !seen.insert(u->owner()).second) continue;
    names.push_back(u->owner()->op().name());
    for (const VarPtr& in : u->owner()->inputs()) stack.push_back(in.get());
  }
  return names;
}

bool all_finite(const Tensor& t) {
  for (double v : t.astype(f64).to_vector<double>())
    if (!std::isfinite(v)) return false;
  return true;
}

// Sets global config keys for one scope (grad() reads optimizer and optimizer_excluding).
class GlobalConfig {
 public:
  GlobalConfig(const std::string& key, const std::string& value)
      : key_(key), saved_(global_config().get(key)) {
    global_config().set(key, value);
  }
  ~GlobalConfig() { global_config().set(key_, saved_); }

 private:
  std::string key_, saved_;
};

struct Model {
  Var x = vector("x", f64);
  Shared w = shared(Tensor::scalar<double>(2.0), "w");
  // log(1 - p) with p = 1 / (1 + exp(-x w)): -softplus(x w), finite for every x.
  Var p = 1 / (1 + exp(-(x * w)));
  Var cost = sum(log(1 - p));
};

Tensor big_x() { return Tensor::from_vector<double>({40, 400, -3}); }

TEST(GradStabilize, GradientsAreFiniteWhereTheCostAsWrittenSaturates) {
  Model m;
  std::vector<Var> g = grad(m.cost, {m.w, m.x});
  // d/dx = -w sigmoid(x w), d/dw = -sum(x sigmoid(x w)).
  auto sig = [](double z) { return 1 / (1 + std::exp(-z)); };
  std::vector<double> gx = test::eval(g[1], {{m.x, big_x()}}).to_vector<double>();
  double gw = test::eval(g[0], {{m.x, big_x()}}).item<double>();
  EXPECT_THAT(gx, ::testing::ElementsAre(::testing::DoubleNear(-2 * sig(80), 1e-15), ::testing::DoubleNear(-2, 1e-15),
                                         ::testing::DoubleNear(-2 * sig(-6), 1e-15)));
  EXPECT_NEAR(gw, -(40 * sig(80) + 400 - 3 * sig(-6)), 1e-12);
}

TEST(GradStabilize, GradientsReadTheUsersOwnInputsAndSharedVariables) {
  Model m;
  std::vector<Var> g = grad(m.cost, {m.w, m.x});
  for (const Var& gi : g)
    for (const Variable* r : roots_of(gi))
      EXPECT_TRUE(r == m.x.ptr().get() || r == m.w.ptr().get() || r->kind() == Variable::Kind::Constant)
          << r->label();
  // The stable form was differentiated: no log, no division by 1 - p.
  for (const Var& gi : g) EXPECT_THAT(ops_of(gi), ::testing::Not(::testing::Contains("Elemwise{true_div}")));
}

TEST(GradStabilize, CostsWithoutAnUnstableFormAreDifferentiatedAsWritten) {
  Var x = vector("x", f64);
  Var cost = sum(exp(x) * x);
  EXPECT_EQ(ops_of(grad(cost, x)), ops_of(grad(cost, x, {.stabilize = false})));
}

TEST(GradStabilize, StabilizeFalseDifferentiatesAsWritten) {
  Model m;
  Var gx = grad(m.cost, m.x, {.stabilize = false});
  EXPECT_FALSE(all_finite(test::eval(gx, {{m.x, big_x()}})));
}

TEST(GradStabilize, IntermediateVariablesInTheOptionsDifferentiateAsWritten) {
  Model m;
  // wrt an intermediate: the copy would not contain it.
  std::vector<Var> g = grad(m.cost, {m.x, m.p});
  EXPECT_FALSE(all_finite(test::eval(g[0], {{m.x, big_x()}})));
  // consider_constant on an intermediate.
  Var c = (m.x * 3).as("c");
  Var gx = grad(m.cost + sum(c), m.x, {.consider_constant = {c.ptr()}});
  EXPECT_FALSE(all_finite(test::eval(gx, {{m.x, big_x()}})));
  // consider_constant on a root is fine: w gets no gradient, x's stays finite.
  Var gx2 = grad(m.cost, m.x, {.consider_constant = {m.w.ptr()}});
  EXPECT_TRUE(all_finite(test::eval(gx2, {{m.x, big_x()}})));
}

TEST(GradStabilize, TheGlobalConfigCanTurnItOff) {
  for (auto [key, value] : {std::pair<std::string, std::string>{"optimizer", "none"},
                            {"optimizer_excluding", "stabilize"},
                            {"optimizer_excluding", "sigmoid_of_exp:log1m_sigmoid"}}) {
    GlobalConfig set(key, value);
    Model m;
    Var gx = grad(m.cost, m.x);
    EXPECT_FALSE(all_finite(test::eval(gx, {{m.x, big_x()}}))) << key << "=" << value;
  }
  // Excluding a rule that does not matter here keeps the rest.
  GlobalConfig set("optimizer_excluding", "expm1");
  Model m;
  EXPECT_TRUE(all_finite(test::eval(grad(m.cost, m.x), {{m.x, big_x()}})));
}

}  // namespace
}  // namespace tgc
