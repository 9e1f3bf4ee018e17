// grad(): reverse-mode differentiation over the user's own variables. One iterative walk
// from the cost collects the nodes in topological order (stopping at consider_constant
// variables and StopGradient nodes); a forward sweep marks which variables lead to a wrt;
// a reverse sweep calls each relevant node's Op::grad and sums the contributions of every
// path. No recursion anywhere, so graphs of any depth work. The cost walked is its
// stabilized copy when GradOptions::stabilize allows (compiler/grad_stabilize.h).
#include "compiler/grad.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "compiler/grad_stabilize.h"
#include "compiler/loss_scaling.h"
#include "ops/core/node.h"
#include "ops/gradient/build.h"
#include "ops/gradient/stop_gradient.h"
#include "runtime/error.h"
#include "runtime/log.h"

namespace tgc {

namespace {

bool is_stop_node(const Node* n) { return dynamic_cast<const StopGradient*>(&n->op()) != nullptr; }

// The nodes between the seeds and the leaves in topological order, and the variables the
// walk reached without crossing a stop: a consider_constant variable, or a StopGradient
// node unless through_stop_nodes.
struct Walk {
  std::vector<Node*> order;
  std::unordered_set<const Variable*> reached;
};

Walk walk_back(const std::vector<const Variable*>& seeds,
               const std::unordered_set<const Variable*>& stops, bool through_stop_nodes = false) {
  Walk w;
  std::unordered_set<const Node*> visited;
  // Marks v reached; returns its producer when the walk must go on into it.
  auto visit = [&](const Variable* v) -> Node* {
    if (stops.count(v)) return nullptr;
    w.reached.insert(v);
    if (v->kind() != Variable::Kind::Result) return nullptr;
    Node* n = v->owner();
    if (!through_stop_nodes && is_stop_node(n)) return nullptr;
    return visited.insert(n).second ? n : nullptr;
  };
  struct Frame { Node* node; size_t next; };
  std::vector<Frame> stack;
  for (const Variable* s : seeds) {
    if (Node* n = visit(s)) stack.push_back({n, 0});
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next < f.node->inputs().size()) {
        const Variable* in = f.node->inputs()[f.next++].get();
        if (Node* m = visit(in)) stack.push_back({m, 0});
      } else {
        w.order.push_back(f.node);
        stack.pop_back();
      }
    }
  }
  return w;
}

std::string label_of(const VarPtr& v) { return "'" + v->label() + "'"; }

void check_wrt(const std::vector<VarPtr>& wrt) {
  for (size_t i = 0; i < wrt.size(); ++i) {
    if (!wrt[i]) throw TypeError(fmt::format("grad: wrt[{}] is undefined", i), "grad()",
                                 "pass variables made by scalar()/vector()/matrix()/shared()/...");
    if (!is_float(wrt[i]->type().dtype))
      throw TypeError(fmt::format("grad: cannot differentiate with respect to {} ({}): only float "
                                  "tensors have gradients", label_of(wrt[i]), wrt[i]->type().str()),
                      "grad()",
                      "integer and bool variables are not differentiable; differentiate with "
                      "respect to a float variable (cast it before it enters the graph)");
  }
}

void check_cost(const VarPtr& cost, const GradOptions& options) {
  if (!cost) {
    if (options.known_grads.empty())
      throw InputError("grad: no cost and no known_grads", "grad()",
                       "pass a scalar cost, or the gradients you already know in known_grads");
    return;
  }
  if (cost->type().ndim() != 0)
    throw TypeError(fmt::format("grad: the cost must be a scalar, got {} {}", label_of(cost),
                                cost->type().str()),
                    "grad()",
                    "reduce it first (sum(y) or mean(y)); for every element's gradient use "
                    "jacobian(y, x), or pass known_grads");
  if (!is_float(cost->type().dtype))
    throw TypeError(fmt::format("grad: the cost must be a float scalar, got {} {}", label_of(cost),
                                cost->type().str()),
                    "grad()", "integer and bool costs are not differentiable; cast the cost to a float type");
}

// Gradients must keep the variable's dtype and rank; a rule that breaks this is a bug.
void check_rule_result(const Node& node, int i, const VarPtr& g) {
  const Type& in = node.inputs()[i]->type();
  if (g->type().dtype != in.dtype || g->type().ndim() != in.ndim())
    throw InternalError(fmt::format("internal error: the gradient rule of {} returned {} for input {} of "
                                    "type {}", node.op().name(), g->type().str(), i, in.str()),
                        node.describe(), "this is a bug in the op's gradient rule; please report it");
}

bool is_root(const VarPtr& v) { return !v || v->kind() != Variable::Kind::Result; }

// Whether the gradient of the stabilized copy of the cost answers the same question: the
// copy shares the user's roots but not their intermediate variables, so every variable the
// options name must be a root.
bool may_stabilize(const VarPtr& cost, const std::vector<VarPtr>& wrt, const GradOptions& options) {
  if (!options.stabilize || !cost) return false;
  for (const VarPtr& w : wrt)
    if (w->kind() != Variable::Kind::Input && w->kind() != Variable::Kind::Shared) return false;
  for (const VarPtr& c : options.consider_constant)
    if (!is_root(c)) return false;
  for (const auto& [v, g] : options.known_grads)
    if (!is_root(v)) return false;
  return true;
}

}  // namespace

std::vector<VarPtr> grad(const VarPtr& user_cost, const std::vector<VarPtr>& wrt, const GradOptions& options) {
  check_cost(user_cost, options);
  check_wrt(wrt);
  const VarPtr cost = may_stabilize(user_cost, wrt, options) ? stabilized_cost(user_cost) : user_cost;

  std::unordered_set<const Variable*> stops;
  for (const VarPtr& c : options.consider_constant)
    if (c) stops.insert(c.get());

  // Seeds: the cost's gradient is 1, then the known gradients.
  std::unordered_map<const Variable*, std::vector<VarPtr>> contrib;
  std::vector<const Variable*> seeds;
  VarPtr cost_seed;  // d cost / d cost: recorded, so that loss scaling can scale it
  if (cost) {
    seeds.push_back(cost.get());
    cost_seed = gradient::scalar_like(1.0, cost);
    contrib[cost.get()].push_back(cost_seed);
  }
  for (const auto& [v, g] : options.known_grads) {
    if (!v || !g) throw TypeError("grad: known_grads has an undefined variable or gradient", "grad()",
                                  "every entry needs a variable and its gradient");
    if (!is_float(v->type().dtype) || g->type().dtype != v->type().dtype ||
        g->type().ndim() != v->type().ndim())
      throw TypeError(fmt::format("grad: the known gradient of {} is {}, expected a {} tensor of rank {}",
                                  label_of(v), g->type().str(), dtype_name(v->type().dtype), v->type().ndim()),
                      "grad()", "a gradient has its variable's dtype and rank; cast or reshape it");
    seeds.push_back(v.get());
    contrib[v.get()].push_back(g);
  }

  Walk walk = walk_back(seeds, stops);

  // relevant[v]: the first wrt that float variable v leads to (a gradient flows through it).
  std::unordered_map<const Variable*, size_t> relevant;
  for (size_t i = 0; i < wrt.size(); ++i)
    if (!stops.count(wrt[i].get())) relevant.emplace(wrt[i].get(), i);
  std::unordered_map<const Node*, size_t> node_relevant;
  for (Node* n : walk.order) {
    size_t first = wrt.size();
    for (const VarPtr& in : n->inputs())
      if (auto it = relevant.find(in.get()); it != relevant.end()) first = std::min(first, it->second);
    if (first == wrt.size()) continue;
    node_relevant[n] = first;
    for (int k = 0; k < n->num_outputs(); ++k) {
      const Variable* out = n->output_raw(k);
      if (is_float(out->type().dtype) && !stops.count(out)) relevant.emplace(out, first);
    }
  }

  // The sum of v's contributions (every path), folded once and cached.
  auto total = [&](const Variable* v) -> VarPtr {
    auto it = contrib.find(v);
    if (it == contrib.end() || it->second.empty()) return nullptr;
    std::vector<VarPtr>& parts = it->second;
    VarPtr sum = parts[0];
    for (size_t i = 1; i < parts.size(); ++i) sum = gradient::add(sum, parts[i]);
    parts.assign(1, sum);
    return sum;
  };

  for (auto it = walk.order.rbegin(); it != walk.order.rend(); ++it) {
    Node* node = *it;
    auto rel = node_relevant.find(node);
    if (rel == node_relevant.end()) continue;
    std::vector<VarPtr> out_grads(node->num_outputs());
    bool any = false;
    for (int k = 0; k < node->num_outputs(); ++k) {
      const Variable* out = node->output_raw(k);
      if (!is_float(out->type().dtype)) continue;
      out_grads[k] = total(out);
      any = any || out_grads[k];
    }
    if (!any) continue;
    std::vector<VarPtr> in_grads;
    try {
      in_grads = node->op().grad(*node, out_grads);
    } catch (Error& e) {
      e.set_where_if_empty(fmt::format("{} on the path from the cost to {}", node->describe(),
                                       label_of(wrt[rel->second])));
      throw;
    }
    if (in_grads.size() != node->inputs().size())
      throw InternalError(fmt::format("internal error: the gradient rule of {} returned {} gradients for {} inputs",
                                      node->op().name(), in_grads.size(), node->inputs().size()),
                          node->describe(), "this is a bug in the op's gradient rule; please report it");
    for (size_t i = 0; i < in_grads.size(); ++i) {
      if (!in_grads[i]) continue;
      check_rule_result(*node, static_cast<int>(i), in_grads[i]);
      const Variable* in = node->inputs()[i].get();
      if (relevant.count(in)) contrib[in].push_back(in_grads[i]);
    }
  }

  std::vector<VarPtr> result;
  result.reserve(wrt.size());
  for (const VarPtr& w : wrt) {
    if (VarPtr g = total(w.get()); g && !stops.count(w.get())) {
      result.push_back(g);
      continue;
    }
    // Connected but no gradient arrived (only integer paths, or rules that return null):
    // the derivative is zero. Not connected at all: the disconnected_inputs policy.
    if (!walk.reached.count(w.get())) {
      bool blocked = walk_back(seeds, {}, /*through_stop_nodes=*/true).reached.count(w.get()) > 0;
      std::string what = blocked ? fmt::format("grad: the cost reaches {} only through consider_constant/"
                                               "stop_gradient", label_of(w))
                                 : fmt::format("grad: the cost does not depend on {}", label_of(w));
      switch (options.disconnected_inputs) {
        case DisconnectedInputs::Raise:
          throw InputError(what, "grad()",
                           "check that the cost is built from this variable, or pass "
                           "disconnected_inputs = DisconnectedInputs::Warn or ::Ignore to get zeros");
        case DisconnectedInputs::Warn:
          log_message(LogKind::Warning, what + "; its gradient is zero");
          break;
        case DisconnectedInputs::Ignore: break;
      }
    }
    result.push_back(gradient::zeros_like(w));
  }
  record_backward_pass(cost_seed, result);
  return result;
}

}  // namespace tgc
