// stabilize's rules: each rewrites what its comment says (structure), agrees with the graph
// as built where that one is finite (random inputs), stays finite and right where the naive
// formula gives inf/NaN or loses every digit (values checked against closed forms), keeps
// the node's dtype, and leaves alone what it must not touch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "canon_test_util.h"
#include "compiler/passes/stabilize.h"
#include "ops/nn/softmax.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using test::expect_same_results;
using test::op_names;

constexpr DType f64 = DType::Float64;

test::PassRun stab(const std::vector<Var>& inputs, const std::vector<Var>& outputs, const PassContext& ctx = {}) {
  return test::run_pass(stabilize, inputs, outputs, ctx);
}

// Output `o` of the graph before and after the pass, on the given input values.
struct BeforeAfter {
  std::vector<double> before, after;
};
BeforeAfter eval_both(const test::PassRun& r, const std::vector<Tensor>& args, size_t o = 0) {
  std::vector<std::pair<Var, Tensor>> bin, ain;
  for (size_t i = 0; i < args.size(); ++i) {
    bin.push_back({Var(r.before.inputs()[i]), args[i]});
    ain.push_back({Var(r.after.inputs()[i]), args[i]});
  }
  return {test::eval(Var(r.before.outputs()[o]), bin).astype(f64).to_vector<double>(),
          test::eval(Var(r.after.outputs()[o]), ain).astype(f64).to_vector<double>()};
}

Tensor vec(std::vector<double> v) { return Tensor::from_vector<double>(v); }

bool all_finite(const std::vector<double>& v) {
  for (double x : v)
    if (!std::isfinite(x)) return false;
  return true;
}

void expect_near_rel(const std::vector<double>& got, const std::vector<double>& want, double rtol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_LE(std::abs(got[i] - want[i]), rtol * std::abs(want[i])) << "element " << i << ": " << got[i] << " vs " << want[i];
}

double softplus_ref(double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }

// ---- 1 / (1 + exp(-x)) -> sigmoid(x)

TEST(Stabilize, SigmoidFromItsFormulaInEveryWriting) {
  Var x = vector("x", f64);
  auto r = stab({x}, {1 / (1 + exp(-x)), 1 / (exp(-x) + 1), true_div(1, 1 + exp(-x)), pow(1 + exp(-x), -1)});
  EXPECT_TRUE(r.changed);
  // -(-x) is x: every output is sigmoid(x) of the input itself.
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{sigmoid}", "Elemwise{sigmoid}", "Elemwise{sigmoid}",
                                             "Elemwise{sigmoid}"));
  for (const VarPtr& o : r.after.outputs()) EXPECT_EQ(o->owner()->inputs()[0].get(), r.after.inputs()[0].get());
  expect_same_results(r, 1e-15);
}

TEST(Stabilize, SigmoidOfTheTutorialsLinearModel) {
  Var x = matrix("x", f64);
  Var w = vector("w", f64);
  Var b = scalar("b", f64);
  // The tutorial writes exp(-dot(x, w) - b): its negation is dot(x, w) + b, exactly.
  auto r = stab({x, w, b}, {(1 / (1 + exp(-dot(x, w) - b))).as("p_1")});
  EXPECT_THAT(op_names(r.after), ElementsAre("Dot", "Elemwise{add}", "Elemwise{sigmoid}"));
  EXPECT_EQ(r.after.outputs()[0]->name(), "p_1");
  expect_same_results(r, 1e-15);
}

TEST(Stabilize, SigmoidOfAnExpWithoutMinusNegates) {
  Var x = vector("x", f64);
  auto r = stab({x}, {1 / (1 + exp(x)), 1 / (1 + exp(x - 2))});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{neg}", "Elemwise{sigmoid}", "Elemwise{sub}", "Elemwise{sigmoid}"));
  expect_same_results(r, 1e-15);
}

TEST(Stabilize, SigmoidStaysFiniteWhereExpOverflows) {
  Var x = vector("x", f64);
  auto r = stab({x}, {1 / (1 + exp(-x))});
  // exp(800) is inf, so the naive formula gives 1/inf = 0 for x = -800 (correct but only by
  // luck) and the formula's gradient is NaN; the values themselves agree.
  BeforeAfter v = eval_both(r, {vec({-800, -30, 0, 30, 800})});
  expect_near_rel(v.after, {0, 1 / (1 + std::exp(30.0)), 0.5, 1 / (1 + std::exp(-30.0)), 1}, 1e-15);
  EXPECT_GT(v.after[0], -1);  // not NaN
}

TEST(Stabilize, ReciprocalOfOtherSumsStays) {
  Var x = vector("x", f64);
  auto r = stab({x}, {1 / (2 + exp(-x)), 2 / (1 + exp(-x)), 1 / (1 + x)});
  EXPECT_FALSE(r.changed);
}

// ---- log(sigmoid(x)) -> -softplus(-x)

TEST(Stabilize, LogSigmoid) {
  Var x = vector("x", f64);
  auto r = stab({x}, {log(sigmoid(x)), log(sigmoid(-x))});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{neg}", "Elemwise{softplus}", "Elemwise{neg}",
                                             "Elemwise{softplus}", "Elemwise{neg}"));
  expect_same_results(r, 1e-14);
  BeforeAfter v = eval_both(r, {vec({-800, -40, 40})});
  EXPECT_TRUE(std::isinf(v.before[0]));  // sigmoid(-800) underflows to 0
  expect_near_rel(v.after, {-800, -softplus_ref(40), -softplus_ref(-40)}, 1e-15);
}

// ---- log(1 - sigmoid(x)) -> -softplus(x)

TEST(Stabilize, LogOneMinusSigmoid) {
  Var x = vector("x", f64);
  auto r = stab({x}, {log(1 - sigmoid(x))});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{softplus}", "Elemwise{neg}"));
  expect_same_results(r, 1e-14);
  BeforeAfter v = eval_both(r, {vec({40, 800, -800})});
  EXPECT_TRUE(std::isinf(v.before[0]));  // 1 - sigmoid(40) rounds to 0
  expect_near_rel(v.after, {-softplus_ref(40), -800, -softplus_ref(-800)}, 1e-15);
}

TEST(Stabilize, LogOneMinusTheSigmoidFormula) {
  Var x = vector("x", f64);
  auto r = stab({x}, {log(1 - 1 / (1 + exp(-x)))});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{softplus}", "Elemwise{neg}"));
  expect_same_results(r, 1e-14);
}

// ---- 1 - sigmoid(x) -> sigmoid(-x) under a log

TEST(Stabilize, OneMinusSigmoidUnderAClippedLog) {
  Var x = vector("x", f64);
  auto r = stab({x}, {log(clip(1 - sigmoid(x), 1e-300, 1.0))});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{neg}", "Elemwise{sigmoid}", "Elemwise{clip}", "Elemwise{log}"));
  expect_same_results(r, 1e-14);
  BeforeAfter v = eval_both(r, {vec({50})});
  EXPECT_NEAR(v.before[0], std::log(1e-300), 1e-9);  // the clip's floor: every digit lost
  EXPECT_NEAR(v.after[0], -50, 1e-12);
}

TEST(Stabilize, OneMinusSigmoidWithoutALogStays) {
  Var x = vector("x", f64);
  auto r = stab({x}, {1 - sigmoid(x), exp(1 - sigmoid(x))});
  EXPECT_FALSE(r.changed);
}

// ---- the tutorial's cross-entropy: the log rules compose

TEST(Stabilize, SigmoidCrossEntropyBecomesSoftplusForm) {
  Var y = vector("y", f64);
  Var z = vector("z", f64);
  Var p = 1 / (1 + exp(-z));
  auto r = stab({y, z}, {-y * log(p) - (1 - y) * log(1 - p)});
  std::vector<std::string> ops = op_names(r.after);
  EXPECT_THAT(ops, ::testing::Not(::testing::Contains("Elemwise{log}")));
  EXPECT_THAT(ops, ::testing::Not(::testing::Contains("Elemwise{sigmoid}")));
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "Elemwise{softplus}"), 2);
  expect_same_results(r, 1e-13);
  BeforeAfter v = eval_both(r, {vec({1, 0, 1, 0}), vec({-800, 800, 50, -50})});
  EXPECT_FALSE(all_finite(v.before));
  // y softplus(-z) + (1 - y) softplus(z)
  expect_near_rel(v.after, {800, 800, softplus_ref(-50), softplus_ref(-50)}, 1e-15);
}

// ---- log(softmax(x)) -> log_softmax(x); softmax, log_softmax and logsumexp are stable ops

TEST(Stabilize, LogOfSoftmax) {
  Var x = matrix("x", f64);
  auto r = stab({x}, {log(softmax(x, 0)), log(softmax(x, -1))});
  EXPECT_THAT(op_names(r.after), ElementsAre("LogSoftmax{axis=0}", "LogSoftmax{axis=1}"));
  expect_same_results(r, 1e-14);
  Tensor big = Tensor::from_vector<double>({0, 1000, 2, 3}, {2, 2});
  BeforeAfter v = eval_both(r, {big}, 1);
  EXPECT_TRUE(std::isinf(v.before[0]));  // softmax underflows to 0 beside 1000
  expect_near_rel(v.after, {-1000, 0, -softplus_ref(1), -softplus_ref(-1)}, 1e-15);
}

TEST(Stabilize, SoftmaxLogSoftmaxAndLogSumExpAreStableOpsAlready) {
  // Their reference evaluations shift by the max, so they need no rewrite: large inputs
  // give the exact results, not inf/NaN.
  Var x = vector("x", f64);
  std::vector<double> s = test::eval(softmax(x), {{x, vec({1000, 0})}}).to_vector<double>();
  std::vector<double> ls = test::eval(log_softmax(x), {{x, vec({1000, -1000})}}).to_vector<double>();
  double lse = test::eval(logsumexp(x), {{x, vec({1000, 1000})}}).item<double>();
  EXPECT_THAT(s, ElementsAre(1.0, 0.0));
  EXPECT_THAT(ls, ElementsAre(0.0, -2000.0));
  EXPECT_DOUBLE_EQ(lse, 1000 + std::log(2.0));
}

// ---- log(sum(exp(x))) -> logsumexp(x)

TEST(Stabilize, LogSumExpKeepsAxesAndKeepdims) {
  Var x = matrix("x", f64);
  auto r = stab({x}, {log(sum(exp(x))), log(sum(exp(x), {1})), log(sum(exp(x), {0}, true))});
  EXPECT_THAT(op_names(r.after),
              ElementsAre("LogSumExp", "LogSumExp{axis=[1]}", "LogSumExp{axis=[0], keepdims=True}"));
  for (int o = 0; o < 3; ++o)
    EXPECT_TRUE(interchangeable(r.before.outputs()[o]->type(), r.after.outputs()[o]->type()));
  expect_same_results(r, 1e-14);
  BeforeAfter v = eval_both(r, {Tensor::from_vector<double>({1000, 1000, -1000, 0}, {2, 2})}, 1);
  EXPECT_TRUE(std::isinf(v.before[0]));
  expect_near_rel(v.after, {1000 + std::log(2.0), 0}, 1e-15);
}

TEST(Stabilize, LogOfAProductOfExpStays) {
  Var x = matrix("x", f64);
  auto r = stab({x}, {log(prod(exp(x))), log(sum(x))});
  EXPECT_FALSE(r.changed);
}

// ---- log(1 + x) -> log1p(x), log(1 - x) -> log1p(-x), log1p(exp(x)) -> softplus(x)

TEST(Stabilize, Log1p) {
  Var x = vector("x", f64);
  auto r = stab({x}, {log(1 + x), log(x + 1)});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{log1p}", "Elemwise{log1p}"));
  expect_same_results(r, 1e-14);
  BeforeAfter v = eval_both(r, {vec({1e-20})});
  EXPECT_EQ(v.before[0], 0);  // 1 + 1e-20 rounds to 1
  EXPECT_DOUBLE_EQ(v.after[0], 1e-20);
}

TEST(Stabilize, Log1m) {
  Var x = vector("x", f64);
  auto r = stab({x}, {log(1 - x)});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{neg}", "Elemwise{log1p}"));
  BeforeAfter v = eval_both(r, {vec({1e-20, 0.25})});
  EXPECT_EQ(v.before[0], 0);
  expect_near_rel(v.after, {-1e-20, std::log(0.75)}, 1e-15);
}

TEST(Stabilize, SoftplusFromLogOnePlusExp) {
  Var x = vector("x", f64);
  auto r = stab({x}, {log(1 + exp(x)), log1p(exp(x))});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{softplus}", "Elemwise{softplus}"));
  expect_same_results(r, 1e-14);
  BeforeAfter v = eval_both(r, {vec({800, -800})});
  EXPECT_TRUE(std::isinf(v.before[0]));
  expect_near_rel(v.after, {800, std::exp(-800.0)}, 1e-15);
}

TEST(Stabilize, IntegerLogOfOnePlusStays) {
  // 1 + i adds in int32 (wrapping at its maximum): log1p(i) would not.
  Var i = vector("i", DType::Int32);
  auto r = stab({i}, {log(1 + i)});
  EXPECT_FALSE(r.changed);
}

// ---- exp(x) - 1 -> expm1(x)

TEST(Stabilize, Expm1InEveryWriting) {
  Var x = vector("x", f64);
  auto r = stab({x}, {exp(x) - 1, exp(x) + -1, -1 + exp(x)});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{expm1}", "Elemwise{expm1}", "Elemwise{expm1}"));
  expect_same_results(r, 1e-13);
  BeforeAfter v = eval_both(r, {vec({1e-20})});
  EXPECT_EQ(v.before[0], 0);
  EXPECT_DOUBLE_EQ(v.after[0], 1e-20);
}

TEST(Stabilize, ExpMinusTwoStays) {
  Var x = vector("x", f64);
  auto r = stab({x}, {exp(x) - 2, 1 - exp(x)});
  EXPECT_FALSE(r.changed);
}

// ---- dtypes

TEST(Stabilize, AWiderConstantCastsTheArgumentUpFirst) {
  // float32 x with a float64 1: the node computes in float64, so does its replacement.
  Var x = vector("x", DType::Float32);
  Var one = constant(1.0, f64);
  auto r = stab({x}, {log(one + x), log(one - sigmoid(x)), one / (one + exp(-x))});
  EXPECT_THAT(op_names(r.after),
              ElementsAre("Elemwise{Cast{float64}}", "Elemwise{log1p}", "Elemwise{Cast{float64}}",
                          "Elemwise{softplus}", "Elemwise{neg}", "Elemwise{Cast{float64}}", "Elemwise{sigmoid}"));
  for (const VarPtr& o : r.after.outputs()) EXPECT_EQ(o->type().dtype, f64);
  // The graph as built rounds sigmoid(x) and exp(-x) to float32 before the float64 math;
  // the replacements do not, so they agree to float32's precision.
  expect_same_results(r, 1e-6);
}

TEST(Stabilize, Float32StaysFloat32) {
  Var x = vector("x", DType::Float32);
  auto r = stab({x}, {log(1 - 1 / (1 + exp(-x))), log(1 + x)});
  for (Node* n : r.after.toposort()) EXPECT_EQ(n->output_raw(0)->type().dtype, DType::Float32) << n->describe();
  expect_same_results(r, 1e-6);
}

// ---- exclusion and the pipeline

TEST(Stabilize, ExcludedRulesAreLeftOut) {
  Var x = vector("x", f64);
  PassContext ctx;
  ctx.excluded = {"log1m_sigmoid"};
  // Without log1m_sigmoid, log(1 - s) is log1m's general case.
  auto r = stab({x}, {log(1 - sigmoid(x))}, ctx);
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{sigmoid}", "Elemwise{neg}", "Elemwise{log1p}"));
}

TEST(Stabilize, RunsInFastRunAndFastCompileWithItsRuleNames) {
  for (const char* mode : {"fast_run", "fast_compile"}) {
    bool found = false;
    for (const PassInfo& p : pipeline(mode)) found = found || (p.name == "stabilize" && p.phase == "stabilize");
    EXPECT_TRUE(found) << mode;
  }
  std::vector<std::string> names = optimizer_names();
  for (const LocalRewrite& rule : stabilize_rules())
    EXPECT_THAT(names, ::testing::Contains(std::string(rule.name)));
}

TEST(Stabilize, FunctionRunsIt) {
  Var x = vector("x", f64);
  Var y = log(1 - sigmoid(x));
  Function stable = function({x}, {y});
  Function naive = function({x}, {y}, {}, {.config = {{"optimizer", "none"}}});
  Tensor big = vec({40, -3});
  EXPECT_THAT(stable(big)[0].to_vector<double>(), ElementsAre(-softplus_ref(40), -softplus_ref(-3)));
  EXPECT_TRUE(std::isinf(naive(big)[0].to_vector<double>()[0]));
}

}  // namespace
}  // namespace tgc
