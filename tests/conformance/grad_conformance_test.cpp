// Gradient graphs on every backend: what grad() builds — SumToLike (undoing broadcasting),
// ReshapeLike, SplitLike, ReduceCount, IncSubtensor, StopGradient, softmax and dot rules — in
// the logistic-regression step and in small costs that need each of them, in float64.
#include <set>

#include "conformance/conformance.h"
#include "ops/core/node.h"
#include "support/op_test_util.h"

namespace tgc::conformance {
namespace {

// Whether the expression of `cost` reads `v`.
bool reads(const Var& cost, const Var& v) {
  std::vector<const Variable*> stack{cost.ptr().get()};
  std::set<const Variable*> seen;
  while (!stack.empty()) {
    const Variable* at = stack.back();
    stack.pop_back();
    if (at == v.ptr().get()) return true;
    if (!seen.insert(at).second || !at->owner()) continue;
    for (const VarPtr& in : at->owner()->inputs()) stack.push_back(in.get());
  }
  return false;
}

std::vector<Case> grad_cases() {
  RandomState rng(61);
  const DType f = DType::Float64;
  std::vector<Case> out;

  Var x = matrix("x", f), y = vector("y", f), w = vector("w", f), b = scalar("b", f);
  const Var p = sigmoid(dot(x, w) + b);
  const Var cost = mean(-y * log(p) - (1.0 - y) * log(1.0 - p)) + 0.01 * sum(square(w));
  std::vector<Var> g = grad(cost, {w, b});
  out.push_back({.name = "logistic regression step",
                 .inputs = {x, y, w, b},
                 .outputs = {cost.as("cost"), g[0].as("d cost / d w"), g[1].as("d cost / d b"),
                             (w - 0.1 * g[0]).as("w - 0.1 gw")},
                 .arg_sets = {{random_values(rng, f, {40, 7}), random_values(rng, DType::Float64, {40}, 0, 1).astype(f),
                               random_values(rng, f, {7}), Tensor::scalar(0.25)},
                              {test::fortran_layout(random_values(rng, f, {9, 7})), random_values(rng, f, {9}, 0, 1),
                               test::reversed_layout(random_values(rng, f, {7}), 0), Tensor::scalar(-1.0)}},
                 .tolerance = kSummation});

  Var m = matrix("m", f), m2 = matrix("m2", f), v = vector("v", f), s = scalar("s", f);
  Var idx = vector("idx", DType::Int64), onehot = matrix("onehot", f);
  const Var broadcast_cost = sum(tanh(m * v + s));
  const Var reshape_cost = sum(square(reshape(m, {-1})) * 0.5) + sum(flatten(m2) * 2.0);
  const Var join_cost = sum(concatenate({m, m2}, 1) * concatenate({m2, m}, 1));
  const Var split_cost = sum(square(split(m2, {1, 2}, 1)[1]));
  const Var mean_cost = mean(m * m) + mean(m2, 0).sum();
  const Var stop_cost = sum(m * stop_gradient(m));
  const Var index_cost = sum(square(m[idx])) + sum(m[{slice(1, 3)}] * 3.0);
  const Var softmax_cost = -sum(log_softmax(m) * onehot) + sum(softmax(m2, 0) * m2);
  const Var dot_cost = sum(dot(m, m2.T()) * 0.5) + dot(v, v);
  std::vector<Var> outputs;
  const std::vector<std::pair<std::string, Var>> costs = {
      {"broadcast", broadcast_cost}, {"reshape", reshape_cost}, {"join", join_cost},
      {"split", split_cost},         {"mean", mean_cost},       {"stop_gradient", stop_cost},
      {"index", index_cost},         {"softmax", softmax_cost}, {"dot", dot_cost}};
  for (const auto& [name, c] : costs) {
    std::vector<Var> wrt;
    for (const Var& candidate : {m, m2, v, s})
      if (reads(c, candidate)) wrt.push_back(candidate);
    std::vector<Var> grads = grad(c, wrt);
    outputs.push_back(c.as(name + " cost"));
    for (size_t i = 0; i < grads.size(); ++i) outputs.push_back(grads[i].as("d " + name + " / d " + wrt[i].name()));
  }
  auto values = [&](int64_t rows, int64_t cols) {
    std::vector<double> hot(static_cast<size_t>(rows * cols), 0.0);
    for (int64_t r = 0; r < rows; ++r) hot[static_cast<size_t>(r * cols + r % cols)] = 1.0;
    return std::vector<Tensor>{random_values(rng, f, {rows, cols}),
                               random_values(rng, f, {rows, cols}),
                               random_values(rng, f, {cols}),
                               Tensor::scalar(0.5),
                               Tensor::from_vector(std::vector<int64_t>{0, rows - 1, 1, 1}),
                               Tensor::from_vector(hot, {rows, cols})};
  };
  std::vector<std::vector<Tensor>> arg_sets = layouts(values(5, 3));
  arg_sets.push_back(values(3, 3));
  out.push_back({.name = "gradients of each kind",
                 .inputs = {m, m2, v, s, idx, onehot},
                 .outputs = outputs,
                 .arg_sets = arg_sets,
                 .tolerance = kSummation});
  return out;
}

[[maybe_unused]] const bool kRegistered = register_family("gradients", &grad_cases);

TEST_P(Conformance, GradientGraphs) { expect_all_conform(&grad_cases); }

}  // namespace
}  // namespace tgc::conformance
