// Slot assignment, thunk creation and last-use analysis.
#include "compiler/linker.h"

#include <unordered_map>

namespace tgc {

LinkedProgram link(const Graph& graph, const Backend& backend) {
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
  for (Node* node : order) {
    Thunk t;
    t.op_name = node->op().name();
    t.op_class = node->op().op_class();
    t.label = node->describe();
    t.kind = node->op().is_transfer()                    ? ThunkKind::Transfer
             : node->placement() == DeviceKind::Host     ? ThunkKind::Cpu
                                                         : ThunkKind::Gpu;
    for (auto& in : node->inputs()) t.inputs.push_back(slot_of.at(in.get()));
    for (int i = 0; i < node->num_outputs(); ++i) t.outputs.push_back(new_slot(node->output_raw(i)));
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
  return out;
}

}  // namespace tgc
