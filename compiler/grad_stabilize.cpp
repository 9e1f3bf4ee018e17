// stabilized_cost: clone the cost, stabilize the clone, clone it back onto the user's inputs.
#include "compiler/grad_stabilize.h"

#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "compiler/passes/stabilize.h"
#include "ops/core/graph.h"
#include "runtime/config.h"

namespace tgc {

namespace {

// The graph inputs (Kind::Input) `cost` depends on, each once, in the order first reached.
std::vector<VarPtr> input_roots(const VarPtr& cost) {
  std::vector<VarPtr> inputs;
  std::unordered_set<const Variable*> seen{cost.get()};
  std::vector<VarPtr> stack{cost};
  while (!stack.empty()) {
    VarPtr v = stack.back();
    stack.pop_back();
    if (v->kind() == Variable::Kind::Input) inputs.push_back(v);
    if (v->kind() != Variable::Kind::Result) continue;
    for (const VarPtr& in : v->owner()->inputs())
      if (seen.insert(in.get()).second) stack.push_back(in);
  }
  return inputs;
}

// The names optimizer_excluding leaves out (unchecked here: function() reports unknown ones).
std::unordered_set<std::string> excluded_names(std::string_view list) {
  std::unordered_set<std::string> names;
  while (!list.empty()) {
    size_t colon = list.find(':');
    if (colon != 0) names.emplace(list.substr(0, colon));
    list = colon == std::string_view::npos ? std::string_view() : list.substr(colon + 1);
  }
  return names;
}

}  // namespace

VarPtr stabilized_cost(const VarPtr& cost) {
  PassContext ctx;
  ctx.config = global_config();
  ctx.excluded = excluded_names(ctx.config.optimizer_excluding);
  ctx.verify = false;
  if (ctx.config.optimizer == "none" || !ctx.enabled("stabilize")) return cost;

  std::vector<VarPtr> inputs = input_roots(cost);
  Graph copy = Graph::clone_of(inputs, {cost});
  if (!stabilize(copy, ctx)) return cost;
  // clone_of made private copies of the inputs (constants and shared variables are kept):
  // read the user's own inputs again, so gradients are expressions of them.
  std::unordered_map<const Variable*, VarPtr> back;
  for (size_t i = 0; i < inputs.size(); ++i) back[copy.inputs()[i].get()] = inputs[i];
  return clone_replace(copy.outputs(), back)[0];
}

}  // namespace tgc
