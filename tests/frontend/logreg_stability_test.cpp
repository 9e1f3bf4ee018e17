// The tutorial's logistic-regression cost, written literally, on inputs scaled by 1e3 (so
// |dot(x, w)| reaches ~1e4 and p_1 is exactly 0 or 1 in float64): with the default
// optimizer the cost and its gradients are finite and match the stable closed form; with
// optimizer=none (the graph and its gradient as written) they are inf/NaN.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <tgc/tgc.h>

namespace tgc {
namespace {

constexpr int64_t kN = 50;
constexpr int64_t kFeats = 20;

struct Problem {
  Tensor x, y, w0;
};

Problem scaled_problem() {
  RandomState rng(22);
  Problem p;
  std::vector<double> x = rng.randn({kN, kFeats}).to_vector<double>();
  for (double& v : x) v *= 1e3;
  p.x = Tensor::from_vector<double>(x, {kN, kFeats});
  p.y = rng.randint(0, 2, {kN}).astype(DType::Float64);
  p.w0 = rng.randn({kFeats});
  return p;
}

double softplus_ref(double z) { return z > 0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z)); }

// The cost and d cost / d b by hand, stably: mean(y softplus(-z) + (1 - y) softplus(z)) and
// mean(sigmoid(z) - y), with b = 0.
std::pair<double, double> reference(const Problem& p) {
  std::vector<double> x = p.x.to_vector<double>(), y = p.y.to_vector<double>(), w = p.w0.to_vector<double>();
  double cost = 0, gb = 0;
  for (int64_t i = 0; i < kN; ++i) {
    double z = 0;
    for (int64_t j = 0; j < kFeats; ++j) z += x[i * kFeats + j] * w[j];
    cost += y[i] * softplus_ref(-z) + (1 - y[i]) * softplus_ref(z);
    gb += (z >= 0 ? 1 / (1 + std::exp(-z)) : std::exp(z) / (1 + std::exp(z))) - y[i];
  }
  return {cost / kN, gb / kN};
}

struct Results {
  double cost;
  std::vector<double> gw;
  double gb;
};

// Builds the literal cost, its gradients and a function of both, under the global config.
Results cost_and_gradients(const Problem& p) {
  Var x = matrix("x", DType::Float64);
  Var y = vector("y", DType::Float64);
  Shared w = shared(p.w0, "w");
  Shared b = shared(Tensor::scalar<double>(0.0), "b");
  Var p_1 = 1 / (1 + exp(-dot(x, w) - b));
  Var cost = mean(-y * log(p_1) - (1 - y) * log(1 - p_1));
  std::vector<Var> g = grad(cost, {w, b});
  std::vector<Tensor> out = function({x, y}, {cost, g[0], g[1]})(p.x, p.y);
  return {out[0].item<double>(), out[1].to_vector<double>(), out[2].item<double>()};
}

bool finite(const Results& r) {
  bool ok = std::isfinite(r.cost) && std::isfinite(r.gb);
  for (double v : r.gw) ok = ok && std::isfinite(v);
  return ok;
}

// Sets the global optimizer for one scope (grad() and function() both read it).
class GlobalOptimizer {
 public:
  explicit GlobalOptimizer(const std::string& mode) : saved_(global_config().optimizer) {
    global_config().optimizer = mode;
  }
  ~GlobalOptimizer() { global_config().optimizer = saved_; }

 private:
  std::string saved_;
};

TEST(LogRegStability, ScaledInputsGiveAFiniteCostAndGradientsWithTheDefaultOptimizer) {
  Problem p = scaled_problem();
  Results r = cost_and_gradients(p);
  EXPECT_TRUE(finite(r)) << "cost " << r.cost << ", gb " << r.gb;
  auto [cost, gb] = reference(p);
  EXPECT_NEAR(r.cost, cost, 1e-12 * std::abs(cost));
  EXPECT_NEAR(r.gb, gb, 1e-12);
}

TEST(LogRegStability, ScaledInputsGiveInfOrNaNWithOptimizerNone) {
  Problem p = scaled_problem();
  GlobalOptimizer none("none");
  Results r = cost_and_gradients(p);
  EXPECT_FALSE(std::isfinite(r.cost)) << r.cost;
  EXPECT_FALSE(finite(r));
}

TEST(LogRegStability, GradOptionsCanTurnTheStabilizedGradientOff) {
  Problem p = scaled_problem();
  Var x = matrix("x", DType::Float64);
  Var y = vector("y", DType::Float64);
  Shared w = shared(p.w0, "w");
  Var p_1 = 1 / (1 + exp(-dot(x, w)));
  Var cost = mean(-y * log(p_1) - (1 - y) * log(1 - p_1));
  Var stable = grad(cost, w);
  Var naive = grad(cost, w, {.stabilize = false});
  // Both compiled with the default optimizer: only the gradient's own form differs.
  std::vector<Tensor> out = function({x, y}, {stable, naive})(p.x, p.y);
  std::vector<double> gs = out[0].to_vector<double>(), gn = out[1].to_vector<double>();
  bool stable_finite = true, naive_finite = true;
  for (double v : gs) stable_finite = stable_finite && std::isfinite(v);
  for (double v : gn) naive_finite = naive_finite && std::isfinite(v);
  EXPECT_TRUE(stable_finite);
  EXPECT_FALSE(naive_finite);
}

}  // namespace
}  // namespace tgc
