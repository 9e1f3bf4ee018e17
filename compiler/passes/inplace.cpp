// inplace: the destroy analysis over buffer lifetimes and the rewiring to inplace ops.
#include "compiler/passes/inplace.h"

#include <unordered_set>

#include "compiler/buffer_lifetimes.h"
#include "compiler/passes/graph_editor.h"
#include "ops/core/apply.h"

namespace tgc {

namespace {

// Whether a value of static type `in` surely fits the buffer of an output of type `out`:
// same dtype and rank, no dim known on both sides with different sizes, and no input dim
// known to be 1 where the output's may be larger (a broadcast input is smaller).
bool fits(const Type& in, const Type& out) {
  if (!interchangeable(in, out)) return false;
  for (int d = 0; d < in.ndim(); ++d)
    if (in.shape[d] == 1 && out.shape[d] != 1) return false;
  return true;
}

// Whether node `n` at schedule position `pos` may overwrite its input `j` with output `k`.
bool may_overwrite(const Node& n, int pos, int k, int j, const BufferLifetimes& life) {
  const Variable* in = n.inputs()[j].get();
  if (!life.own(in) || life.buffer_death(in) != pos) return false;
  if (!fits(in->type(), n.output_raw(k)->type())) return false;
  // Another view of the same buffer read here would be read while it is overwritten.
  for (const VarPtr& other : n.inputs())
    if (other.get() != in && life.root(other.get()) == life.root(in)) return false;
  return true;
}

std::string describe(const Node& n, const Op& op) {
  std::string s = op.name() + "(";
  for (size_t i = 0; i < n.inputs().size(); ++i) s += (i ? ", " : "") + n.inputs()[i]->label();
  return s + ")";
}

}  // namespace

bool inplace(Graph& graph, const PassContext& ctx) {
  const std::vector<Node*> order = graph.toposort();
  const BufferLifetimes life(graph, order);

  // Decide on the unchanged graph first: each buffer dies at one node, so the decisions are
  // independent of each other.
  std::vector<std::pair<Node*, std::shared_ptr<const Op>>> decided;
  for (size_t i = 0; i < order.size(); ++i) {
    Node* n = order[i];
    std::shared_ptr<const Op> op = n->op_ptr();
    std::unordered_set<const Variable*> taken;
    for (int k = 0; k < n->num_outputs(); ++k) {
      if (op->inplace_input(k) >= 0 || op->view_of_input(k) >= 0) continue;
      for (int j = 0; j < static_cast<int>(n->inputs().size()); ++j) {
        const Variable* in = n->inputs()[j].get();
        if (taken.count(in) || !may_overwrite(*n, static_cast<int>(i), k, j, life)) continue;
        std::shared_ptr<const Op> variant = op->make_inplace(k, j);
        if (!variant) continue;
        op = std::move(variant);
        taken.insert(in);
        break;
      }
    }
    if (op != n->op_ptr()) decided.push_back({n, op});
  }
  if (decided.empty()) return false;

  GraphEditor editor(graph);
  for (auto& [n, op] : decided) {
    std::vector<VarPtr> outs = apply(op, n->inputs());
    // Placement ran before: the inplace variant runs where the node it replaces was placed.
    outs[0]->owner()->set_placement(n->placement());
    if (ctx.host_reasons)
      if (auto it = ctx.host_reasons->find(n); it != ctx.host_reasons->end()) {
        std::string reason = std::move(it->second);
        ctx.host_reasons->erase(it);
        (*ctx.host_reasons)[outs[0]->owner()] = std::move(reason);
      }
    if (ctx.trace) ctx.trace->push_back({"inplace", "inplace", describe(*n, n->op()), describe(*n, *op)});
    for (int k = 0; k < n->num_outputs(); ++k) {
      outs[k]->set_name(n->output_raw(k)->name());
      editor.replace(n->output_raw(k), outs[k]);
    }
  }
  return true;
}

}  // namespace tgc
