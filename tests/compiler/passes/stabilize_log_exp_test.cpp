// stabilize's rules for the log of a sum or difference of exponentials (log_add_exp,
// log_sub_exp, log1mexp, log1p_neg_exp) and softplus's commuted spellings: each rewrites
// every writing a user would choose, agrees with the graph as built where that one is
// finite, is right at extreme arguments (float64 closed forms) in float64 and float32, and
// is a fixed point of the table (its own output is not rewritten again).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>

#include "canon_test_util.h"
#include "compiler/passes/stabilize.h"

namespace tgc {
namespace {

using test::expect_same_results;
using test::op_names;

constexpr DType f64 = DType::Float64;
constexpr DType f32 = DType::Float32;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kLn2 = std::numbers::ln2;

test::PassRun stab(const std::vector<Var>& inputs, const std::vector<Var>& outputs) {
  return test::run_pass(stabilize, inputs, outputs);
}

// Output `o` of the stabilized graph on `args` (the reference evaluator), as doubles.
std::vector<double> eval_after(const test::PassRun& r, const std::vector<Tensor>& args, size_t o = 0) {
  std::vector<std::pair<Var, Tensor>> in;
  for (size_t i = 0; i < args.size(); ++i) in.push_back({Var(r.after.inputs()[i]), args[i]});
  return test::eval(Var(r.after.outputs()[o]), in).astype(f64).to_vector<double>();
}
std::vector<double> eval_before(const test::PassRun& r, const std::vector<Tensor>& args, size_t o = 0) {
  std::vector<std::pair<Var, Tensor>> in;
  for (size_t i = 0; i < args.size(); ++i) in.push_back({Var(r.before.inputs()[i]), args[i]});
  return test::eval(Var(r.before.outputs()[o]), in).astype(f64).to_vector<double>();
}

Tensor vec(const std::vector<double>& v, DType t = f64) { return Tensor::from_vector<double>(v).astype(t); }

// Within rtol of `want` (relative), infinities and NaNs exactly where `want` has them.
void expect_close(const std::vector<double>& got, const std::vector<double>& want, double rtol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << ": " << got[i];
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << "element " << i;
    } else {
      EXPECT_LE(std::abs(got[i] - want[i]), rtol * std::abs(want[i])) << "element " << i << ": " << got[i] << " vs "
                                                                         << want[i];
    }
  }
}

// No log of a sum or difference of exponentials, nor log1p(-exp(x)) outside a log1mexp, is left.
bool has_op(const Graph& g, const std::string& name) {
  for (Node* n : g.toposort())
    if (n->op().name() == name) return true;
  return false;
}

// float64 references.
double logaddexp_ref(double a, double b) {
  if (a == b) return a + kLn2;
  const double m = std::max(a, b);
  return m + std::log1p(std::exp(-std::abs(a - b)));
}
double log1mexp_ref(double x) { return x > -kLn2 ? std::log(-std::expm1(x)) : std::log1p(-std::exp(x)); }

// ---- log(exp(a) + exp(b))

TEST(StabilizeLogExp, LogAddExpInEveryWriting) {
  Var a = vector("a", f64), b = vector("b", f64);
  auto r = stab({a, b}, {log(exp(a) + exp(b)), log(exp(b) + exp(a))});
  EXPECT_TRUE(r.changed);
  EXPECT_FALSE(has_op(r.after, "Elemwise{exp}")) << r.after.str();
  EXPECT_FALSE(has_op(r.after, "Elemwise{log}")) << r.after.str();
  EXPECT_TRUE(has_op(r.after, "Elemwise{softplus}"));
  expect_same_results(r, 1e-14);
}

TEST(StabilizeLogExp, LogAddExpAtExtremeArguments) {
  Var a = vector("a", f64), b = vector("b", f64);
  auto r = stab({a, b}, {log(exp(a) + exp(b))});
  const std::vector<double> as{1000, -1000, 1000, -1000, 1e308, 0, 0, kInf, -kInf, kInf, kInf, 3, NAN, 5};
  const std::vector<double> bs{1000, -1000, -1000, 1000, 1e308, -50, 1e-300, kInf, -kInf, -kInf, 7, 3, 1, NAN};
  std::vector<double> want;
  for (size_t i = 0; i < as.size(); ++i) want.push_back(std::isnan(as[i]) || std::isnan(bs[i]) ? NAN : logaddexp_ref(as[i], bs[i]));
  EXPECT_EQ(want[0], 1000 + kLn2);
  const std::vector<double> got = eval_after(r, {vec(as), vec(bs)});
  expect_close(got, want, 1e-15);
  EXPECT_TRUE(std::isinf(eval_before(r, {vec(as), vec(bs)})[0]));  // exp(1000) overflows
}

TEST(StabilizeLogExp, LogAddExpInFloat32) {
  Var a = vector("a", f32), b = vector("b", f32);
  auto r = stab({a, b}, {log(exp(a) + exp(b))});
  for (Node* n : r.after.toposort())
    EXPECT_TRUE(n->output_raw(0)->type().dtype == f32 || n->output_raw(0)->type().dtype == DType::Bool) << n->describe();
  const std::vector<double> as{100, -100, 100, 1000, 0, 20}, bs{100, -100, -100, 1000, -30, 20.5};
  std::vector<double> want;
  for (size_t i = 0; i < as.size(); ++i) want.push_back(logaddexp_ref(as[i], bs[i]));
  expect_close(eval_after(r, {vec(as, f32), vec(bs, f32)}), want, 1e-6);
}

// ---- log(exp(a) - exp(b))

TEST(StabilizeLogExp, LogSubExpInEveryWriting) {
  Var a = vector("a", f64), b = vector("b", f64);
  auto r = stab({a, b}, {log(exp(a) - exp(b)), log(exp(a) + -exp(b)), log(-exp(b) + exp(a))});
  EXPECT_TRUE(r.changed);
  for (size_t o = 0; o < 3; ++o) {
    const Node* out = r.after.outputs()[o]->owner();
    EXPECT_EQ(out->op().name(), "Elemwise{add}") << o;  // a + log1mexp(b - a)
  }
  // The graph as built is finite where a > b and both are moderate.
  const Tensor av = vec({2, 1.5, 0.75}), bv = vec({1, 0.5, -3});
  for (size_t o = 0; o < 3; ++o) expect_close(eval_after(r, {av, bv}, o), eval_before(r, {av, bv}, o), 1e-14);
}

TEST(StabilizeLogExp, LogSubExpAtExtremeArguments) {
  Var a = vector("a", f64), b = vector("b", f64);
  auto r = stab({a, b}, {log(exp(a) - exp(b))});
  const std::vector<double> as{1000, -1000, 1000, 0, 1000, kInf, 1, 2};
  const std::vector<double> bs{999, -1001, 1000 - 1e-10, -50, 1000, 0, -kInf, 3};
  std::vector<double> want;
  for (size_t i = 0; i < as.size(); ++i) want.push_back(as[i] + log1mexp_ref(bs[i] - as[i]));
  want[3] = -std::exp(-50.0);  // log(1 - e^-50): the naive formula gives 0
  want[4] = -kInf;             // log(0)
  want[7] = NAN;               // a < b: no real logarithm
  const std::vector<double> got = eval_after(r, {vec(as), vec(bs)});
  expect_close(got, want, 1e-9);  // b - a = -1e-10 - (rounding of 1000 - 1e-10): 1e-6 relative in that one
  EXPECT_NEAR(got[0], 1000 + std::log1p(-std::exp(-1.0)), 1e-12);
  const std::vector<double> naive = eval_before(r, {vec(as), vec(bs)});
  EXPECT_TRUE(std::isnan(naive[0]));  // inf - inf
  EXPECT_EQ(naive[3], 0);
}

// ---- log(1 - exp(x)) and log1p(-exp(x))

TEST(StabilizeLogExp, Log1mexpInEveryWriting) {
  Var x = vector("x", f64);
  auto r = stab({x}, {log(1 - exp(x)), log(1 + -exp(x)), log(-exp(x) + 1), log1p(-exp(x))});
  EXPECT_TRUE(r.changed);
  EXPECT_TRUE(has_op(r.after, "Elemwise{expm1}"));
  for (size_t o = 0; o < 4; ++o) EXPECT_EQ(r.after.outputs()[o]->owner()->op().name(), "Elemwise{where}") << o;
  const Tensor xv = vec({-0.1, -0.5, -2, -7});
  for (size_t o = 0; o < 4; ++o) expect_close(eval_after(r, {xv}, o), eval_before(r, {xv}, o), 1e-13);
}

TEST(StabilizeLogExp, Log1mexpAtExtremeArguments) {
  for (DType t : {f64, f32}) {
    Var x = vector("x", t);
    auto r = stab({x}, {log(1 - exp(x)), log1p(-exp(x))});
    const std::vector<double> xs{-1e-20, -1e-8, -kLn2, -0.6, -0.8, -50, -1000, 0, -kInf};
    std::vector<double> want;
    for (double v : xs) want.push_back(log1mexp_ref(t == f32 ? static_cast<double>(static_cast<float>(v)) : v));
    for (size_t o = 0; o < 2; ++o) expect_close(eval_after(r, {vec(xs, t)}, o), want, t == f64 ? 1e-14 : 1e-6);
    // Both naive forms lose x = -1e-20 entirely: 1 - exp(x) rounds to 0, so log gives -inf.
    EXPECT_EQ(eval_before(r, {vec(xs, t)}, 1)[0], -kInf) << dtype_name(t);
  }
}

// ---- log(1 + exp(x)) in its commuted writings

TEST(StabilizeLogExp, SoftplusInEveryWriting) {
  for (DType t : {f64, f32}) {
    Var x = vector("x", t);
    auto r = stab({x}, {log(1 + exp(x)), log(exp(x) + 1), log1p(exp(x))});
    EXPECT_THAT(op_names(r.after), ::testing::Each(::testing::Eq("Elemwise{softplus}")));
    const std::vector<double> xs{1000, 100, 30, 0, -30, -1000};
    std::vector<double> want;
    for (double v : xs) want.push_back(v > 0 ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v)));
    for (size_t o = 0; o < 3; ++o) expect_close(eval_after(r, {vec(xs, t)}, o), want, t == f64 ? 1e-15 : 1e-6);
  }
}

// ---- the table's fixed point

TEST(StabilizeLogExp, TheStableFormsAreAFixedPoint) {
  Var a = vector("a", f64), b = vector("b", f64);
  auto r = stab({a, b}, {log(exp(a) + exp(b)), log(exp(a) - exp(b)), log(1 - exp(a)), log1p(-exp(b))});
  const std::string once = r.after.str();
  EXPECT_FALSE(stabilize(r.after, PassContext{}));
  EXPECT_EQ(r.after.str(), once);
}

// Through the whole pipeline: the stable forms fuse into one kernel, and a second run of the
// pipeline (with fusion, and without it, where the rules see the elementwise nodes) changes
// nothing — the stable forms are a fixed point of canonicalize, float32 casting and merge too.
TEST(StabilizeLogExp, ThePipelineFusesThemAndIsIdempotent) {
  for (DType t : {f64, f32}) {
    Var a = vector("a", t), b = vector("b", t);
    std::vector<Var> outs{log(exp(a) + exp(b)), log(exp(b) - exp(a)), log(1 - exp(a)), log1p(-exp(b)),
                          log(exp(a) + 1)};
    for (const char* excluding : {"", "decompose_for_fusion:fuse_elemwise:inplace"}) {
      Config config;
      config.optimizer_excluding = excluding;
      const PassContext ctx = make_pass_context(config);
      Graph g = Graph::clone_of(to_ptrs({a, b}), to_ptrs(outs));
      optimize(g, ctx);
      const std::string once = g.str();
      if (std::string(excluding).empty()) {
        ASSERT_EQ(g.toposort().size(), 1u) << once;  // one multi-output kernel
        EXPECT_EQ(g.toposort()[0]->op().op_class(), "Composite") << once;
      }
      optimize(g, ctx);
      EXPECT_EQ(g.str(), once) << dtype_name(t) << ", excluding '" << excluding << "'";
    }
  }
}

TEST(StabilizeLogExp, OtherLogsOfExpsStay) {
  Var a = vector("a", f64), b = vector("b", f64);
  auto r = stab({a, b}, {log(exp(a) * exp(b)), log(exp(a) + b), log(2 - exp(a)), log1p(exp(a) - exp(b))});
  EXPECT_FALSE(r.changed) << r.after.str();
}

}  // namespace
}  // namespace tgc
