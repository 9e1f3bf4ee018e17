// Slot assignment, thunk creation, last-use analysis and buffer handovers.
#include "compiler/linker.h"

#include <unordered_map>

#include "compiler/buffer_lifetimes.h"
#include "compiler/memory_plan.h"

namespace tgc {

LinkedProgram link(const Graph& graph, const Backend& backend, const LinkOptions& options) {
  LinkedProgram out;
  Program& prog = out.program;
  std::unordered_map<const Variable*, int> slot_of;
  auto new_slot = [&](const Variable* v) {
    int s = prog.num_slots++;
    slot_of[v] = s;
    return s;
  };

  for (auto& in : graph.inputs()) {
    int s = new_slot(in.get());
    out.input_slots.push_back(s);
    prog.bound_slots.push_back(s);
  }
  for (Variable* root : graph.roots()) {
    if (slot_of.count(root)) continue;
    int s = new_slot(root);
    if (root->kind() == Variable::Kind::Constant) {
      prog.constants.push_back({s, root->constant_value()});
    } else {
      TGC_INTERNAL_CHECK(root->kind() == Variable::Kind::Shared,
                         "unexpected root variable " + root->label() + " in a cloned graph");
      out.shared_slots.push_back({s, root->storage()});
      prog.bound_slots.push_back(s);
    }
  }

  std::vector<Node*> order = graph.toposort();
  const BufferLifetimes life(graph, order);
  for (size_t pos = 0; pos < order.size(); ++pos) {
    Node* node = order[pos];
    Thunk t;
    t.op_name = node->op().name();
    t.op_class = node->op().op_class();
    t.label = node->describe();
    t.kind = node->op().is_transfer()                    ? ThunkKind::Transfer
             : node->placement() == DeviceKind::Host     ? ThunkKind::Cpu
                                                         : ThunkKind::Gpu;
    for (auto& in : node->inputs()) t.inputs.push_back(slot_of.at(in.get()));
    for (int i = 0; i < node->num_outputs(); ++i) t.outputs.push_back(new_slot(node->output_raw(i)));
    // An inplace op's input buffer, when it is still dead here and the function's own (the
    // inplace pass decided on this schedule; a later rewrite may have changed it).
    for (int k = 0; k < node->num_outputs(); ++k) {
      int j = node->op().inplace_input(k);
      if (j < 0) continue;
      const Variable* in = node->inputs()[j].get();
      if (life.own(in) && life.buffer_death(in) == static_cast<int>(pos)) t.inplace.push_back({k, t.inputs[j]});
    }
    t.run = backend.make_thunk(*node);
    prog.thunks.push_back(std::move(t));
  }
  for (auto& o : graph.outputs()) prog.output_slots.push_back(slot_of.at(o.get()));

  // An intermediate dies after its last reader, or right after its producer when nothing
  // reads it (an unused output of a multi-output op).
  std::vector<bool> intermediate = prog.intermediate_mask();
  std::vector<int> last_use(prog.num_slots, -1);
  for (size_t i = 0; i < prog.thunks.size(); ++i) {
    for (int s : prog.thunks[i].outputs) last_use[s] = static_cast<int>(i);
    for (int s : prog.thunks[i].inputs) last_use[s] = static_cast<int>(i);
  }
  for (int s = 0; s < prog.num_slots; ++s)
    if (intermediate[s] && last_use[s] >= 0) prog.thunks[last_use[s]].frees.push_back(s);

  std::vector<SlotFacts> facts(prog.num_slots);
  for (const auto& [v, s] : slot_of) facts[s] = {v->type(), life.own(v), slot_of.at(life.root(v))};
  if (options.plan_memory) plan_memory(prog, facts, options.allow_gc);
  if (!options.allow_gc) close_handover_loops(prog, facts);
  return out;
}

}  // namespace tgc
