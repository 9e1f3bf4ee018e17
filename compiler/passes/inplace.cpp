// inplace: the destroy analysis over buffer lifetimes and the rewiring to inplace ops — first
// the updates written into their shared variables' buffers (compiler/update_in_place.h), then
// the intermediates, on the schedule that runs those updates last.
#include "compiler/passes/inplace.h"

#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "compiler/buffer_lifetimes.h"
#include "compiler/kernel/composite_op.h"
#include "compiler/passes/graph_editor.h"
#include "compiler/update_in_place.h"
#include "ops/blas/gemm.h"
#include "ops/core/apply.h"
#include "ops/elemwise/elemwise.h"
#include "ops/subtensor/inc_subtensor.h"
#include "ops/subtensor/subtensor.h"

namespace tgc {

namespace {

// Whether node n at schedule position `pos` may overwrite its input `j` with output `k`.
bool may_overwrite(const Node& n, int pos, int k, int j, const BufferLifetimes& life) {
  const Variable* in = n.inputs()[j].get();
  if (!life.own(in) || life.buffer_death(in) != pos) return false;
  if (!fits_buffer(in->type(), n.output_raw(k)->type())) return false;
  // Another view of the same buffer read here would be read while it is overwritten.
  for (const VarPtr& other : n.inputs())
    if (other.get() != in && life.root(other.get()) == life.root(in)) return false;
  return true;
}

// Whether some node gathers with the same index as the increment `inc` from the same
// variable: AdvancedSubtensor{spec}(x, arrays...) for IncSubtensor{spec}(x, v, arrays...), as
// the forward pass of an embedding does. It raised on any index out of range before the
// increment runs (it is no update, so it runs before every update: schedule()).
bool indices_checked_by_a_gather(const Node& inc, const std::vector<Node*>& order) {
  const auto& op = static_cast<const IncSubtensor&>(inc.op());
  for (const Node* g : order) {
    const auto* gather = dynamic_cast<const AdvancedSubtensor*>(&g->op());
    if (!gather || !(gather->spec() == op.spec()) || g->inputs()[0] != inc.inputs()[0]) continue;
    if (g->inputs().size() + 1 != inc.inputs().size()) continue;
    bool same_arrays = true;
    for (size_t a = 1; a < g->inputs().size(); ++a) same_arrays = same_arrays && g->inputs()[a] == inc.inputs()[a + 1];
    if (same_arrays) return true;
  }
  return false;
}

// Whether every error `variant` (n's op, writing a shared variable in place) can raise is one
// Op::validate raises first, writing nothing — so that the executor's check of all updates
// before the first writes keeps a failing call from changing any variable. Elementwise kernels
// raise on shapes only (integer //, %, ** can raise on values: not those); BLAS on shapes; an
// increment with index arrays also on index values, which validate reads on the host, and
// which on a device (read there only by the kernels, which skip a bad index but write the
// others) must have been checked by a gather with the same index.
// Whether the graph holds a device gather or scatter with index arrays: their bounds checks
// a call recorded as a CUDA graph makes at its end (gpu::GpuDevice::defer_flag_check), after
// every update's write, where only a writer whose kernels skip themselves once the error word
// is set (the scatter) may have written a variable in place (runtime/call_replay.cpp).
bool checks_may_be_deferred(const std::vector<Node*>& order) {
  for (const Node* n : order) {
    if (n->placement() == DeviceKind::Host) continue;
    if (dynamic_cast<const AdvancedSubtensor*>(&n->op())) return true;
    if (const auto* inc = dynamic_cast<const IncSubtensor*>(&n->op()); inc && inc->spec().has_arrays()) return true;
  }
  return false;
}

bool errors_raised_before_writing(const Node& n, const Op& variant, const std::vector<Node*>& order) {
  const bool device_scatter = n.placement() != DeviceKind::Host && dynamic_cast<const IncSubtensor*>(&variant) &&
                              static_cast<const IncSubtensor&>(variant).spec().has_arrays();
  if (!device_scatter && n.placement() != DeviceKind::Host && checks_may_be_deferred(order)) return false;
  if (dynamic_cast<const Composite*>(&variant)) return true;  // make_inplace refuses kernels that can raise
  if (dynamic_cast<const ScaledMatmul*>(&variant)) return true;
  if (const auto* e = dynamic_cast<const Elemwise*>(&variant)) {
    const ScalarOpKind k = e->kind();
    if (k != ScalarOpKind::FloorDiv && k != ScalarOpKind::Mod && k != ScalarOpKind::Pow) return true;
    for (const VarPtr& in : n.inputs())
      if (!is_float(in->type().dtype)) return false;
    return true;
  }
  if (const auto* inc = dynamic_cast<const IncSubtensor*>(&variant)) {
    if (!inc->spec().has_arrays() || n.placement() == DeviceKind::Host) return true;
    return indices_checked_by_a_gather(n, order);
  }
  return false;  // an op this analysis does not know: not in place
}

// A shared variable's update written into its buffer: node n, output k, input j, its variant.
struct VariableWrite {
  int k, j;
  std::shared_ptr<const Op> variant;
};

// The updates that go in place, by node: each node computing a variable's update from that
// variable, whose op has a variant writing into it, passes errors_raised_before_writing and
// may_update_in_place on the schedule that runs all of them last. Candidates that fail are
// dropped and the rest checked again on the schedule without them, until all pass.
std::unordered_map<Node*, VariableWrite> decide_variable_writes(const Graph& graph, const PassContext& ctx) {
  std::unordered_map<Node*, VariableWrite> writes;
  if (ctx.updates.empty()) return writes;
  const std::vector<Node*> toposort = graph.toposort();
  for (size_t o = 0; o < graph.outputs().size() && o < ctx.updates.size(); ++o) {
    if (!ctx.updates[o]) continue;
    Node* n = graph.outputs()[o]->owner();
    if (!n || writes.count(n)) continue;
    const int k = graph.outputs()[o]->index();
    const Op& op = n->op();
    if (op.inplace_input(k) >= 0 || op.view_of_input(k) >= 0) continue;
    for (int j = 0; j < static_cast<int>(n->inputs().size()); ++j) {
      const VarPtr& in = n->inputs()[j];
      if (in->kind() != Variable::Kind::Shared || in->storage().get() != ctx.updates[o]) continue;
      std::shared_ptr<const Op> variant = op.make_inplace(k, j);
      if (variant && errors_raised_before_writing(*n, *variant, toposort)) writes[n] = {k, j, std::move(variant)};
      break;
    }
  }
  for (bool dropped = true; dropped && !writes.empty();) {
    std::unordered_set<const Node*> last;
    for (const auto& [n, w] : writes) last.insert(n);
    const std::vector<Node*> order = schedule_with_last(graph, last);
    const BufferLifetimes life(graph, order);
    dropped = false;
    for (size_t pos = 0; pos < order.size(); ++pos) {
      auto it = writes.find(order[pos]);
      if (it == writes.end()) continue;
      if (!may_update_in_place(*it->first, static_cast<int>(pos), it->second.k, it->second.j, life, graph, ctx.updates)) {
        writes.erase(it);
        dropped = true;
      }
    }
  }
  return writes;
}

std::string describe(const Node& n, const Op& op) {
  std::string s = op.name() + "(";
  for (size_t i = 0; i < n.inputs().size(); ++i) s += (i ? ", " : "") + n.inputs()[i]->label();
  return s + ")";
}

}  // namespace

bool inplace(Graph& graph, const PassContext& ctx) {
  const std::unordered_map<Node*, VariableWrite> writes = decide_variable_writes(graph, ctx);
  std::unordered_set<const Node*> last;
  for (const auto& [n, w] : writes) last.insert(n);
  // The schedule the linker will follow once those nodes write variables (schedule()).
  const std::vector<Node*> order = schedule_with_last(graph, last);
  const BufferLifetimes life(graph, order);

  // Decide on the unchanged graph first: each buffer dies at one node, so the decisions are
  // independent of each other.
  std::vector<std::pair<Node*, std::shared_ptr<const Op>>> decided;
  for (size_t i = 0; i < order.size(); ++i) {
    Node* n = order[i];
    std::shared_ptr<const Op> op = n->op_ptr();
    std::unordered_set<const Variable*> taken;
    if (auto w = writes.find(n); w != writes.end()) {
      op = w->second.variant;
      taken.insert(n->inputs()[w->second.j].get());
    }
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
