// Slot assignment, thunk creation, last-use analysis and buffer handovers.
#include "compiler/linker.h"

#include <algorithm>
#include <chrono>
#include <unordered_map>
#include <unordered_set>

#include "compiler/branch_guards.h"
#include "compiler/buffer_lifetimes.h"
#include "compiler/memory_plan.h"
#include "compiler/passes/placement.h"
#include "compiler/passes/shape_equivalence.h"
#include "compiler/scan/scan_thunk.h"
#include "compiler/update_in_place.h"
#include "ops/collective/collective_op.h"
#include "ops/control/ifelse.h"
#include "ops/transfer/transfer.h"
#include "runtime/compile_log.h"
#include "runtime/interrupt.h"

namespace tgc {

namespace {

// Backend::prepare's expectation: each input's shape where the types and facts give it, for
// inputs that are buffers of their own (a view's strides are its producer's business).
ExpectedInputShapes expected_input_shapes(const std::vector<const Node*>& nodes, const SharedShapeFacts* facts) {
  ShapeEquivalence shapes(facts);
  ExpectedInputShapes expected;
  for (const Node* node : nodes) {
    std::vector<std::optional<Shape>> known;
    bool any = false;
    for (const auto& in : node->inputs()) {
      const Node* producer = in->owner();
      const bool view = producer && producer->op().view_of_input(in->index()) >= 0;
      known.push_back(view ? std::nullopt : shapes.known_shape(*in));
      any = any || known.back().has_value();
    }
    if (any) expected.emplace(node, std::move(known));
  }
  return expected;
}

}  // namespace

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

  std::vector<Node*> order = schedule(graph);
  // log_compiles: what linking spends beyond code generation and loading (the constants' copies,
  // a thunk that takes long to make) gets lines of its own.
  CompileLog* log = current_compile_log();
  const auto constants_start = std::chrono::steady_clock::now();
  int constants_copied = 0;
  // Constants moved to the device: transferred now, once, into constant slots.
  for (Node* node : order) {
    if (!node->op().is_transfer() || node->placement() == DeviceKind::Host) continue;
    const Variable* in = node->inputs()[0].get();
    if (in->kind() != Variable::Kind::Constant) continue;
    TGC_INTERNAL_CHECK(options.device_backend, "a device transfer in a graph linked without a device backend");
    std::vector<Tensor> outs(1);
    options.device_backend->make_thunk(*node)({in->constant_value()}, outs);
    const int s = new_slot(node->output_raw(0));
    prog.constants.push_back({s, outs[0]});
    ++constants_copied;
  }
  if (log && constants_copied > 0)
    log->add_library_setup(std::to_string(constants_copied) + " device cop" + (constants_copied == 1 ? "y" : "ies") +
                               " of constants",
                           std::chrono::duration<double>(std::chrono::steady_clock::now() - constants_start).count());
  std::unordered_set<const Variable*> constant_copies;
  std::erase_if(order, [&](Node* n) {
    if (!slot_of.count(n->output_raw(0))) return false;
    constant_copies.insert(n->output_raw(0));
    return true;
  });
  // Each backend sees its nodes first, so it may compile their kernels at once, for the
  // shapes the calls are expected to have.
  {
    std::vector<const Node*> host_nodes, device_nodes;
    for (Node* node : order) (node->placement() == DeviceKind::Host ? host_nodes : device_nodes).push_back(node);
    // Only a device backend builds by the expectation (the CPU's LLVM kernels are one variant
    // each): a host-only function pays nothing for it.
    backend.prepare(host_nodes, {});
    if (options.device_backend && !device_nodes.empty())
      options.device_backend->prepare(device_nodes, expected_input_shapes(device_nodes, options.shape_facts));
  }
  const BufferLifetimes life(graph, order);
  const BranchGuards guards(graph);
  std::unordered_map<const Node*, int> position;
  for (size_t pos = 0; pos < order.size(); ++pos) position[order[pos]] = static_cast<int>(pos);
  for (size_t pos = 0; pos < order.size(); ++pos) {
    Node* node = order[pos];
    check_interrupt("compiling (making the kernels)");  // a node's kernel may take a while to build
    const bool on_device = node->placement() != DeviceKind::Host;
    TGC_INTERNAL_CHECK(!on_device || options.device_backend,
                       "node " + node->describe() + " is placed on a device but no device backend was given");
    const Backend& maker = on_device ? *options.device_backend : backend;
    Thunk t;
    t.op_name = placed_op_name(*node);
    t.op_class = node->op().op_class();
    t.label = node->describe();
    t.kind = node->op().is_transfer()                    ? ThunkKind::Transfer
             : node->op().is_collective()                ? ThunkKind::Comm
             : node->placement() == DeviceKind::Host     ? ThunkKind::Cpu
                                                         : ThunkKind::Gpu;
    for (auto& in : node->inputs()) t.inputs.push_back(slot_of.at(in.get()));
    // Lazy branches: the conditions under which a result needs this node (ops/control/ifelse.h).
    for (const GuardTerm& term : guards.guard(node)) {
      std::vector<BranchTest>& tests = t.guard.emplace_back();
      for (const BranchLiteral& l : term) {
        const Variable* cond = l.ifelse->inputs()[IfElse::kCond].get();
        // A condition copied to the device for a device IfElse: test the host value, no wait.
        if (cond->owner() && cond->owner()->op().is_transfer() && cond->owner()->placement() != DeviceKind::Host &&
            dynamic_cast<const HostToDevice*>(&cond->owner()->op()))
          cond = cond->owner()->inputs()[0].get();
        auto p = cond->owner() ? position.find(cond->owner()) : position.end();
        tests.push_back({slot_of.at(cond), p == position.end() ? -1 : p->second, l.when});
      }
    }
    if (const auto* ifelse = dynamic_cast<const IfElse*>(&node->op())) {
      Thunk::Choice& c = t.choice.emplace();
      c.condition = IfElse::kCond;
      for (int k = 0; k < ifelse->size(); ++k) {
        c.then_inputs.push_back(ifelse->then_input(k));
        c.else_inputs.push_back(ifelse->else_input(k));
      }
    }
    for (int i = 0; i < node->num_outputs(); ++i) t.outputs.push_back(new_slot(node->output_raw(i)));
    // An inplace op's input buffer, when it is still dead here and the function's own (the
    // inplace pass decided on this schedule; a later rewrite may have changed it).
    for (int k = 0; k < node->num_outputs(); ++k) {
      int j = node->op().inplace_input(k);
      if (j < 0) continue;
      const Variable* in = node->inputs()[j].get();
      if (in->kind() == Variable::Kind::Shared) {
        // An update written into its variable: the thunks from here on are validated first.
        if (!may_update_in_place(*node, static_cast<int>(pos), k, j, life, graph, options.updates)) continue;
        t.inplace.push_back({k, t.inputs[j]});
        for (size_t s = 0; s < out.shared_slots.size(); ++s)
          if (out.shared_slots[s].first == t.inputs[j]) out.written_in_place.push_back(s);
        continue;
      }
      // (A constant's device copy is a constant slot: never the function's to overwrite.)
      const bool constant = in->kind() == Variable::Kind::Constant || constant_copies.count(in);
      if (!constant && life.own(in) && life.buffer_death(in) == static_cast<int>(pos))
        t.inplace.push_back({k, t.inputs[j]});
    }
    t.device = on_device ? maker.device() : nullptr;
    t.self_contained = on_device && maker.self_contained(*node);
    t.serial_domain = on_device ? maker.serial_domain(*node) : 0;
    if (node->op().is_collective()) t.bus_factor = static_cast<const CollectiveOp&>(node->op()).bus_factor();
    t.skips_writes_once_flagged = on_device && maker.skips_writes_once_flagged(*node);
    const auto thunk_start = std::chrono::steady_clock::now();
    if (is_loop_node(*node)) {
      TGC_INTERNAL_CHECK(options.loops, "a loop in a graph linked without LinkOptions::loops");
      t.run = make_loop_thunk(*node, *options.loops);
    } else {
      t.run = maker.make_thunk(*node);
    }
    if (log) {
      const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - thunk_start).count();
      if (took > 1e-3) log->add_library_setup("the thunk of '" + t.label + "'", took);  // a slow one: say which
    }
    // schedule() ran every node that writes a variable last: from the first, each is checked
    // before any writes (a node whose variable's buffer was not handed over checks too: it
    // may fail after another wrote).
    if (writes_variable(*node)) {
      prog.first_variable_write = std::min(prog.first_variable_write, prog.thunks.size());
      t.check = [op = node->op_ptr()](const std::vector<Tensor>& inputs) { op->validate(inputs); };
    }
    prog.thunks.push_back(std::move(t));
  }
  if (out.written_in_place.empty()) prog.first_variable_write = SIZE_MAX;
  for (auto& o : graph.outputs()) prog.output_slots.push_back(slot_of.at(o.get()));

  // An intermediate dies after its last reader, or right after its producer when nothing
  // reads it (an unused output of a multi-output op).
  std::vector<bool> intermediate = prog.intermediate_mask();
  std::vector<int> last_use(prog.num_slots, -1);
  for (size_t i = 0; i < prog.thunks.size(); ++i) {
    for (int s : prog.thunks[i].outputs) last_use[s] = static_cast<int>(i);
    for (int s : prog.thunks[i].inputs) last_use[s] = static_cast<int>(i);
    // A guard reads its conditions (a host condition whose device copy the IfElse reads
    // dies only after the last thunk it guards).
    for (const auto& term : prog.thunks[i].guard)
      for (const BranchTest& t : term) last_use[t.slot] = std::max(last_use[t.slot], static_cast<int>(i));
  }
  for (int s = 0; s < prog.num_slots; ++s)
    if (intermediate[s] && last_use[s] >= 0) prog.thunks[last_use[s]].frees.push_back(s);

  std::vector<SlotFacts> facts(prog.num_slots);
  for (const auto& [v, s] : slot_of) facts[s] = {v->type(), life.own(v), slot_of.at(life.root(v))};
  // Constant slots (device copies of constants made above included) are never handed on.
  for (const auto& [s, t] : prog.constants) facts[s].own = false;
  if (options.plan_memory) plan_memory(prog, facts, options.allow_gc);
  if (!options.allow_gc) close_handover_loops(prog, facts);
  return out;
}

}  // namespace tgc
