// Dynamic loss scaling (see loss_scaling.h).
#include "compiler/loss_scaling.h"

#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "ops/core/apply.h"
#include "ops/core/graph.h"
#include "ops/core/shared_value_lock.h"
#include "ops/elemwise/elemwise.h"
#include "ops/gradient/build.h"
#include "ops/reduce/careduce.h"

namespace tgc {

namespace {

struct BackwardPass {
  std::weak_ptr<Variable> seed;
  std::vector<std::weak_ptr<Variable>> gradients;
};

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
std::unordered_map<const Variable*, BackwardPass>& registry() {
  static auto* r = new std::unordered_map<const Variable*, BackwardPass>();  // process lifetime
  return *r;
}

VarPtr op(ScalarOpKind kind, std::vector<VarPtr> inputs) {
  return apply1(std::make_shared<Elemwise>(kind), std::move(inputs));
}
VarPtr constant(float v) { return Variable::constant(Tensor::scalar<float>(v)); }

// Every variable the expressions of `outs` read, roots included.
std::unordered_set<const Variable*> reachable(const std::vector<VarPtr>& outs) {
  std::unordered_set<const Variable*> seen;
  std::vector<const Variable*> stack;
  for (const VarPtr& o : outs) stack.push_back(o.get());
  while (!stack.empty()) {
    const Variable* v = stack.back();
    stack.pop_back();
    if (!seen.insert(v).second || !v->owner()) continue;
    for (const VarPtr& in : v->owner()->inputs()) stack.push_back(in.get());
  }
  return seen;
}

}  // namespace

void record_backward_pass(const VarPtr& seed, const std::vector<VarPtr>& gradients) {
  if (!seed) return;
  std::lock_guard lock(registry_mutex());
  auto& r = registry();
  for (auto it = r.begin(); it != r.end();) it = it->second.seed.expired() ? r.erase(it) : std::next(it);
  BackwardPass pass{seed, {}};
  for (const VarPtr& g : gradients)
    if (g) pass.gradients.push_back(g);
  r[seed.get()] = std::move(pass);
}

std::optional<LossScaled> apply_loss_scaling(const std::vector<VarPtr>& outs, size_t first_update,
                                             const std::vector<VarPtr>& update_targets) {
  // The recorded backward passes these outputs and updates read: their seeds, and those of
  // their gradients that depend on the seed (a disconnected input's zeros do not).
  const std::unordered_set<const Variable*> seen = reachable(outs);
  std::unordered_map<const Variable*, VarPtr> seeds;
  std::vector<VarPtr> gradients;
  {
    std::lock_guard lock(registry_mutex());
    for (const auto& [key, pass] : registry()) {
      VarPtr seed = pass.seed.lock();
      if (!seed || !seen.count(seed.get())) continue;
      seeds[seed.get()] = seed;
      for (const auto& weak : pass.gradients)
        if (VarPtr g = weak.lock(); g && seen.count(g.get()) && is_float(g->type().dtype) && reachable({g}).count(seed.get()))
          gradients.push_back(g);
    }
  }
  if (seeds.empty() || gradients.empty()) return std::nullopt;

  auto scale = make_shared_value(Tensor::scalar<float>(static_cast<float>(kInitialLossScale)), "loss_scale", false);
  // float32 (exact to 2^24), as the scale: float32 shared variables live on the device, so a
  // GPU step reads and updates both there.
  auto good = make_shared_value(Tensor::scalar<float>(0), "loss_scale_finite_steps", false);
  const VarPtr s = Variable::shared(scale), n = Variable::shared(good);

  // 1. The backward passes start from S instead of 1: every gradient is S times larger.
  std::unordered_map<const Variable*, VarPtr> seed_to_scaled;
  for (const auto& [raw, seed] : seeds) seed_to_scaled[raw] = gradient::mul(seed, gradient::cast(s, seed->type().dtype));
  std::vector<VarPtr> all = outs;
  all.insert(all.end(), gradients.begin(), gradients.end());
  std::vector<VarPtr> scaled = clone_replace(all, seed_to_scaled);
  // 2. Each gradient divided by S (in its own float type): what the outputs and updates read.
  std::unordered_map<const Variable*, VarPtr> unscale;
  VarPtr any_bad;
  for (size_t i = 0; i < gradients.size(); ++i) {
    const VarPtr& g = scaled[outs.size() + i];
    if (unscale.count(g.get())) continue;
    const VarPtr u = gradient::div(g, gradient::cast(s, g->type().dtype));
    unscale[g.get()] = u;
    const VarPtr bad = apply1(std::make_shared<CAReduce>(ReduceKind::Any, std::nullopt, false),
                              {op(ScalarOpKind::LogicalOr, {op(ScalarOpKind::IsNan, {u}), op(ScalarOpKind::IsInf, {u})})});
    any_bad = any_bad ? op(ScalarOpKind::LogicalOr, {any_bad, bad}) : bad;
  }
  std::vector<VarPtr> main(scaled.begin(), scaled.begin() + static_cast<std::ptrdiff_t>(outs.size()));
  std::vector<VarPtr> rewritten = clone_replace(main, unscale);
  const VarPtr finite = op(ScalarOpKind::LogicalNot, {any_bad});

  // 3. A step with an inf or NaN changes no variable.
  LossScaled result;
  for (size_t i = 0; i < rewritten.size(); ++i) {
    if (i < first_update) {
      result.outs.push_back(rewritten[i]);
      continue;
    }
    const VarPtr& target = update_targets.at(i - first_update);
    result.outs.push_back(op(ScalarOpKind::Where, {finite, rewritten[i], target}));
  }
  // 4. The scale: halved after a bad step, doubled after kLossScaleGrowthInterval good ones.
  const VarPtr next_count = op(ScalarOpKind::Add, {n, constant(1)});
  const VarPtr grow = op(ScalarOpKind::Ge, {next_count, constant(static_cast<float>(kLossScaleGrowthInterval))});
  const VarPtr new_scale = op(ScalarOpKind::Where, {finite, op(ScalarOpKind::Where, {grow, op(ScalarOpKind::Mul, {s, constant(2)}), s}),
                                                    op(ScalarOpKind::Mul, {s, constant(0.5f)})});
  const VarPtr zero = constant(0);
  const VarPtr new_count = op(ScalarOpKind::Where, {finite, op(ScalarOpKind::Where, {grow, zero, next_count}), zero});
  result.state_updates = {{s, new_scale}, {n, new_count}};
  return result;
}

}  // namespace tgc
