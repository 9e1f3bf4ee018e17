// Updates in place: the schedule that runs them last and the buffer conditions for writing a
// shared variable's new value into its own buffer.
#include "compiler/update_in_place.h"

#include "compiler/branch_guards.h"
#include "compiler/collective_schedule.h"

namespace tgc {

bool fits_buffer(const Type& in, const Type& out) {
  if (!interchangeable(in, out)) return false;
  for (int d = 0; d < in.ndim(); ++d)
    if (in.shape[d] == 1 && out.shape[d] != 1) return false;
  return true;
}

bool writes_variable(const Node& n) {
  for (int k = 0; k < n.num_outputs(); ++k) {
    const int j = n.op().inplace_input(k);
    if (j >= 0 && n.inputs()[j]->kind() == Variable::Kind::Shared) return true;
  }
  return false;
}

std::vector<Node*> schedule_with_last(const Graph& graph, const std::unordered_set<const Node*>& last) {
  // Each ifelse condition before the work it guards (compiler/branch_guards.h); collectives
  // as early as their inputs allow and their readers late (compiler/collective_schedule.h).
  std::vector<Node*> order = issue_collectives_early(BranchGuards(graph).order(graph));
  if (last.empty()) return order;
  std::unordered_set<const Node*> movable(last);
  for (const Node* n : order)
    for (const VarPtr& in : n->inputs())
      if (in->owner() && in->owner() != n) movable.erase(in->owner());
  std::vector<Node*> rest, tail;
  for (Node* n : order) (movable.count(n) ? tail : rest).push_back(n);
  rest.insert(rest.end(), tail.begin(), tail.end());
  return rest;
}

std::vector<Node*> schedule(const Graph& graph) {
  std::unordered_set<const Node*> last;
  for (Node* n : graph.toposort())
    if (writes_variable(*n)) last.insert(n);
  return schedule_with_last(graph, last);
}

bool may_update_in_place(const Node& n, int pos, int k, int j, const BufferLifetimes& life, const Graph& graph,
                         const UpdateTargets& updates) {
  const Variable* var = n.inputs()[j].get();
  const Variable* out = n.output_raw(k);
  if (var->kind() != Variable::Kind::Shared || !fits_buffer(var->type(), out->type())) return false;
  // The update of this very variable, and nothing else the caller reads or a node reads.
  int as_output = 0;
  bool its_update = false;
  for (size_t o = 0; o < graph.outputs().size(); ++o) {
    if (graph.outputs()[o].get() != out) continue;
    ++as_output;
    its_update = o < updates.size() && updates[o] == var->storage().get();
  }
  if (as_output != 1 || !its_update || life.last_use(out) != pos) return false;
  // The old value: read by no later node (views included), not returned, read here once.
  if (life.buffer_death(var) != pos || life.returned(var)) return false;
  for (int i = 0; i < static_cast<int>(n.inputs().size()); ++i)
    if (i != j && life.root(n.inputs()[i].get()) == life.root(var)) return false;
  return true;
}

}  // namespace tgc
