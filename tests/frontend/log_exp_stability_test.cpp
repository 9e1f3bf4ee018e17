// The log of sums and differences of exponentials through function(): log(exp(a) + exp(b)),
// log(exp(a) - exp(b)), log(1 - exp(x)) and log(1 + exp(x)) compiled with the default
// optimizer are right at extreme arguments (against float64 closed forms) in float64 and
// float32, on the reference backend (the fused kernel in the interpreter), on the LLVM CPU
// backend and on OpenCL where present; their gradients are the stable forms' (verify_grad,
// and closed forms where the naive gradient is NaN).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <tgc/tgc.h>

#include "backends/backend_registry.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/opencl/opencl_backend.h"
#include "ops/core/graph.h"

namespace tgc {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kLn2 = std::numbers::ln2;

double logaddexp_ref(double a, double b) {
  if (a == b) return a + kLn2;
  return std::max(a, b) + std::log1p(std::exp(-std::abs(a - b)));
}
double log1mexp_ref(double x) { return x > -kLn2 ? std::log(-std::expm1(x)) : std::log1p(-std::exp(x)); }
double softplus_ref(double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }

void expect_close(const std::vector<double>& got, const std::vector<double>& want, double rtol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isinf(want[i]) || std::isnan(want[i]))
      EXPECT_TRUE(got[i] == want[i] || (std::isnan(got[i]) && std::isnan(want[i]))) << what << " element " << i << ": " << got[i];
    else
      EXPECT_LE(std::abs(got[i] - want[i]), rtol * std::abs(want[i]))
          << what << " element " << i << ": " << got[i] << " vs " << want[i];
  }
}

// The backends a host function can run on in this build, and the device setting each needs.
std::vector<std::pair<std::string, std::string>> backends() {
  std::vector<std::pair<std::string, std::string>> out{{"reference", "cpu"}};
  if (llvm_backend_available()) out.push_back({"llvm", "cpu"});
  if (opencl_available()) out.push_back({"opencl", "opencl"});
  return out;
}

TEST(LogExpStability, ExtremeArgumentsOnEveryBackend) {
  const std::vector<double> as{1000, -1000, 1000, 0, 2, 1e-20, 80, -50, 0};
  const std::vector<double> bs{1000, -1000, 999, -50, -kInf, 0, 79, -50.5, 0};
  const std::vector<double> xs{-1e-20, -1e-8, -0.5, -0.9, -50, -1000, 1000, -1000, 0};
  for (const auto& [backend, device] : backends()) {
    for (DType t : {DType::Float64, DType::Float32}) {
      const std::string what = backend + " " + std::string(dtype_name(t));
      ForcedBackendForTests force(backend);
      Var a = vector("a", t), b = vector("b", t), x = vector("x", t);
      Function f = function({a, b, x}, {log(exp(a) + exp(b)), log(exp(a) - exp(b)), log(1 - exp(x)), log(1 + exp(x))},
                            {}, {.config = {{"device", device}}});
      EXPECT_NE(f.graph().str().find("Composite"), std::string::npos) << f.graph().str();
      auto in = [&](const std::vector<double>& v) { return Tensor::from_vector<double>(v).astype(t); };
      // The references read the arguments as the function does: rounded to t.
      auto rounded = [&](double v) { return t == DType::Float32 ? static_cast<double>(static_cast<float>(v)) : v; };
      std::vector<double> add, sub, l1m, sp;
      for (size_t i = 0; i < as.size(); ++i) {
        const double av = rounded(as[i]), bv = rounded(bs[i]), xv = rounded(xs[i]);
        add.push_back(logaddexp_ref(av, bv));
        sub.push_back(av == bv ? -kInf : av + log1mexp_ref(bv - av));
        l1m.push_back(xv > 0 ? NAN : log1mexp_ref(xv));
        sp.push_back(softplus_ref(xv));
      }
      ASSERT_EQ(add[0], 1000 + kLn2);
      std::vector<Tensor> out = f(in(as), in(bs), in(xs));
      const double rtol = t == DType::Float64 ? 1e-13 : 2e-6;
      expect_close(out[0].astype(DType::Float64).to_vector<double>(), add, rtol, what + " log(exp(a) + exp(b))");
      expect_close(out[1].astype(DType::Float64).to_vector<double>(), sub, rtol, what + " log(exp(a) - exp(b))");
      expect_close(out[2].astype(DType::Float64).to_vector<double>(), l1m, rtol, what + " log(1 - exp(x))");
      expect_close(out[3].astype(DType::Float64).to_vector<double>(), sp, rtol, what + " log(1 + exp(x))");
    }
  }
}

// The naive gradient of log(exp(a) + exp(b)) is inf/inf = NaN at a = b = 1000; the stable
// form's is the softmax weights, 1/2 each at a tie.
TEST(LogExpStability, GradientsAtExtremeArguments) {
  Var a = vector("a", DType::Float64), b = vector("b", DType::Float64);
  Var cost = sum(log(exp(a) + exp(b)));
  std::vector<Var> g = grad(cost, {a, b});
  std::vector<Tensor> out = function({a, b}, g)(Tensor::from_vector<double>({1000, 1000, -1000, 3}),
                                                Tensor::from_vector<double>({1000, -1000, -1000, 1}));
  const double w = 1 / (1 + std::exp(-2.0));  // d/da at a - b = 2
  expect_close(out[0].to_vector<double>(), {0.5, 1, 0.5, w}, 1e-14, "d/da");
  expect_close(out[1].to_vector<double>(), {0.5, 0, 0.5, 1 - w}, 1e-14, "d/db");

  Var x = vector("x", DType::Float64);
  Var gx = grad(sum(log(1 - exp(x))), x);
  // d/dx log(1 - exp(x)) = -exp(x) / (1 - exp(x)) = -1 / expm1(-x).
  std::vector<double> xs{-1e-10, -0.5, -1, -40};
  std::vector<double> want;
  for (double v : xs) want.push_back(-1 / std::expm1(-v));
  expect_close(function({x}, {gx})(Tensor::from_vector<double>(xs))[0].to_vector<double>(), want, 1e-9, "d/dx log1mexp");
}

TEST(LogExpStability, VerifyGradOfTheStableForms) {
  auto t = [](std::vector<double> v) { return Tensor::from_vector<double>(v); };
  // Ties (a = b) and both orders.
  verify_grad([](const std::vector<Var>& v) { return log(exp(v[0]) + exp(v[1])); },
              {t({1, -3, 2, 40, 0.25}), t({1, 2, -3, 40, 0.5})});
  verify_grad([](const std::vector<Var>& v) { return log(exp(v[0]) - exp(v[1])); },
              {t({2, 0.5, 10, 3}), t({1, -3, 9.5, -20})});
  // Both sides of log1mexp's switch at -log 2.
  verify_grad([](const std::vector<Var>& v) { return log(1 - exp(v[0])); }, {t({-0.1, -0.6, -0.8, -5})});
  verify_grad([](const std::vector<Var>& v) { return log1p(-exp(v[0])); }, {t({-0.1, -0.6, -0.8, -5})});
  verify_grad([](const std::vector<Var>& v) { return log(exp(v[0]) + 1); }, {t({-30, -1, 0, 1, 30})});
}

}  // namespace
}  // namespace tgc
