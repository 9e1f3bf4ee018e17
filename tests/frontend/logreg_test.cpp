// The tutorial's logistic regression (issue 3's acceptance test): trained in float64 for
// 10000 steps through grad() and shared-variable updates, it must match an independent
// float64 reference of the same updates, written here with the hand-derived gradient
// (dcost/dw = x^T (p - y) / N + 0.02 w, dcost/db = mean(p - y)), and classify all 400
// training examples correctly. Both writings of the cross-entropy do: its stable form, and
// the tutorial's literal -y*log(p_1) - (1-y)*log(1-p_1), which on this data is inf/NaN as
// written (p_1 rounds to 1.0 for 40 examples) and trains because grad() differentiates its
// stabilized form and function() evaluates that form (the stabilize rewrites).
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tgc/tgc.h>

namespace tgc {
namespace {

constexpr int64_t kN = 400;
constexpr int64_t kFeats = 784;
constexpr int kSteps = 10000;

struct Data {
  Tensor x, y, w0;
};

Data tutorial_data() {
  RandomState rng(22);
  Data d;
  d.x = rng.randn({kN, kFeats});
  d.y = rng.randint(0, 2, {kN}).astype(DType::Float64);
  d.w0 = rng.randn({kFeats});
  return d;
}

// Plain loops over the same updates: w -= 0.01 dcost/dw, b -= 0.01 dcost/db.
void reference_training(const Data& d, std::vector<double>& w, double& b) {
  const std::vector<double> x = d.x.to_vector<double>();
  const std::vector<double> y = d.y.to_vector<double>();
  w = d.w0.to_vector<double>();
  b = 0;
  std::vector<double> r(kN), gw(kFeats);
  for (int step = 0; step < kSteps; ++step) {
    double gb = 0;
    for (int64_t i = 0; i < kN; ++i) {
      const double* xi = &x[i * kFeats];
      double z = b;
      for (int64_t j = 0; j < kFeats; ++j) z += xi[j] * w[j];
      double p = 1 / (1 + std::exp(-z));
      r[i] = p - y[i];
      gb += r[i];
    }
    std::fill(gw.begin(), gw.end(), 0.0);
    for (int64_t i = 0; i < kN; ++i) {
      const double* xi = &x[i * kFeats];
      for (int64_t j = 0; j < kFeats; ++j) gw[j] += xi[j] * r[i];
    }
    for (int64_t j = 0; j < kFeats; ++j) w[j] -= 0.01 * (gw[j] / kN + 0.02 * w[j]);
    b -= 0.01 * gb / kN;
  }
}

struct Reference {
  std::vector<double> w;
  double b = 0;
};

// Computed once for both tests.
const Reference& reference() {
  static const Reference ref = [] {
    Reference r;
    reference_training(tutorial_data(), r.w, r.b);
    return r;
  }();
  return ref;
}

// Trains with grad() on a cross-entropy built by `xent_of(y, z, p_1)` (z = dot(x, w) + b,
// p_1 its sigmoid) and checks w, b and the training accuracy against the reference.
template <typename XentFn>
void train_and_compare(XentFn&& xent_of) {
  Data d = tutorial_data();
  Var x = matrix("x", DType::Float64);
  Var y = vector("y", DType::Float64);
  Shared w = shared(d.w0, "w");
  Shared b = shared(Tensor::scalar<double>(0.0), "b");
  Var z = dot(x, w) + b;
  Var p_1 = (1 / (1 + exp(-dot(x, w) - b))).as("p_1");
  Var prediction = (p_1 > 0.5).as("prediction");
  Var xent = xent_of(y, z, p_1).as("xent");
  Var cost = (mean(xent) + 0.01 * sum(pow(w, 2))).as("cost");
  std::vector<Var> g = grad(cost, {w, b});
  Function train = function({x, y}, {prediction, xent}, {{w, w - 0.01 * g[0]}, {b, b - 0.01 * g[1]}},
                            {.name = "train"});
  Function predict = function({x}, {prediction}, {}, {.name = "predict"});
  for (int step = 0; step < kSteps; ++step) train(d.x, d.y);

  const Reference& ref = reference();
  std::vector<double> w_got = w.get_value().to_vector<double>();
  ASSERT_EQ(w_got.size(), ref.w.size());
  double w_scale = 0, w_err = 0;
  int64_t not_finite = 0;
  for (size_t j = 0; j < ref.w.size(); ++j) {
    not_finite += !std::isfinite(w_got[j]);
    w_scale = std::max(w_scale, std::abs(ref.w[j]));
    if (std::isfinite(w_got[j])) w_err = std::max(w_err, std::abs(w_got[j] - ref.w[j]));
  }
  EXPECT_EQ(not_finite, 0) << "elements of w that are inf or NaN";
  ::testing::Test::RecordProperty("w_max_rel_error", fmt::format("{:.3g}", w_err / w_scale));
  EXPECT_LE(w_err, 1e-9 * w_scale) << "max |w - w_ref| = " << w_err << " (max |w_ref| = " << w_scale << ")";
  double b_got = b.get_value().item<double>();
  ::testing::Test::RecordProperty("b_rel_error", fmt::format("{:.3g}", std::abs(b_got - ref.b) / std::abs(ref.b)));
  EXPECT_TRUE(std::abs(b_got - ref.b) <= 1e-9 * std::abs(ref.b)) << "b = " << b_got << ", reference " << ref.b;

  std::vector<double> pred = predict(d.x)[0].astype(DType::Float64).to_vector<double>();
  std::vector<double> target = d.y.to_vector<double>();
  int correct = 0;
  for (int64_t i = 0; i < kN; ++i) correct += pred[i] == target[i];
  EXPECT_EQ(correct, kN) << "training accuracy " << correct << "/" << kN;
}

// The same cross-entropy written stably: -log(sigmoid(z)) = softplus(-z) and
// -log(1 - sigmoid(z)) = softplus(z), finite where p_1 rounds to 0 or 1.
TEST(LogReg, StableCrossEntropyTrainsLikeTheReference) {
  train_and_compare([](const Var& y, const Var& z, const Var&) {
    return y * softplus(-z) + (1 - y) * softplus(z);
  });
}

// The tutorial's own formula. As written it is inf/NaN for the examples where p_1 rounds to
// 1.0; the reference's gradient is the same function's (p - y), derived by hand.
TEST(LogReg, TutorialsLiteralCrossEntropyTrainsLikeTheReference) {
  train_and_compare([](const Var& y, const Var&, const Var& p_1) {
    return -y * log(p_1) - (1 - y) * log(1 - p_1);
  });
}

}  // namespace
}  // namespace tgc
