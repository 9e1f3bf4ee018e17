// make_loop_thunk(): the inner program of a Scan and the loop that runs it.
#include "compiler/scan/scan_thunk.h"

#include <memory>

#include "compiler/linker.h"
#include "compiler/passes/pipeline.h"
#include "compiler/scan/scan_loop.h"
#include "compiler/scan/scan_op.h"
#include "runtime/error.h"
#include "runtime/executor.h"

namespace tgc {

namespace {

struct InnerProgram {
  Graph graph;
  LinkedProgram linked;
};

}  // namespace

bool is_loop_node(const Node& node) { return dynamic_cast<const ScanOp*>(&node.op()) != nullptr; }

ThunkFn make_loop_thunk(const Node& node, const LoopCompileContext& context) {
  const auto& op = static_cast<const ScanOp&>(node.op());
  const ScanSpec& spec = op.spec();
  TGC_INTERNAL_CHECK(context.host_backend && context.pass_context, "a loop linked without its compile context");
  const bool on_device = node.placement() != DeviceKind::Host;
  const Backend* device_backend = on_device ? context.device_backend : nullptr;
  TGC_INTERNAL_CHECK(!on_device || device_backend, "a loop placed on a device without a device backend");

  auto inner = std::make_shared<InnerProgram>();
  inner->graph = Graph::clone_of(op.inner_inputs(), op.inner_outputs());
  // The function's pipeline and exclusions; the loop's own placement: its inputs are where
  // the node runs, and so are its results, except an until condition, read on the host.
  PassContext ctx = *context.pass_context;
  ctx.trace = nullptr;
  ctx.host_reasons = nullptr;
  ctx.updates.clear();
  ctx.shared_shapes.clear();
  if (on_device) {
    const DeviceKind there = device_backend->device_kind();
    ctx.placement.input_locations.assign(inner->graph.inputs().size(), there);
    ctx.placement.output_locations.assign(inner->graph.outputs().size(), there);
    if (spec.has_until) ctx.placement.output_locations.back() = DeviceKind::Host;
  } else {
    ctx.placement = PlacementTarget{};
  }
  optimize(inner->graph, ctx);
  LoopCompileContext nested = context;
  nested.pass_context = &ctx;
  // Inside a loop every step keeps its intermediates' buffers for the next step (allow_gc off):
  // a step allocates nothing after the first, and a recorded call holds one step's worth of
  // intermediates rather than one per step. Each step's results are copied out of them.
  LinkOptions lo;
  lo.plan_memory = context.plan_memory;
  lo.allow_gc = false;
  lo.device_backend = device_backend;
  lo.loops = &nested;
  inner->linked = link(inner->graph, *context.host_backend, lo);
  TGC_INTERNAL_CHECK(inner->linked.shared_slots.empty(), "a loop's inner graph reads a shared variable");

  const Backend* copier = on_device ? device_backend : context.host_backend;
  Device* device = on_device ? device_backend->device() : nullptr;
  std::vector<Type> per_step_types;
  for (int k = 0; k < spec.num_outputs_per_step; ++k)
    per_step_types.push_back(op.inner_outputs()[spec.states.size() + k]->type());
  return [inner, spec, copier, device, per_step_types](const std::vector<Tensor>& inputs,
                                                                 std::vector<Tensor>& outputs) {
    const Program& prog = inner->linked.program;
    std::vector<Tensor> slots(prog.num_slots);
    for (const auto& [s, t] : prog.constants) slots[s] = t;
    ScanLoopHooks hooks;
    hooks.device = device;
    hooks.per_step_types = per_step_types;
    hooks.copy = [copier](const Tensor& src, const Tensor& dst) { copier->copy_tensor(src, dst); };
    hooks.step = [&](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
      for (size_t i = 0; i < in.size(); ++i) slots[inner->linked.input_slots[i]] = in[i];
      ExecOptions eo;
      eo.allow_gc = false;
      execute(prog, slots, eo, nullptr);
      for (size_t k = 0; k < out.size(); ++k) out[k] = slots[prog.output_slots[k]];
      // The step's inputs are views of the loop's buffers: not kept past the step.
      for (size_t i = 0; i < in.size(); ++i) slots[inner->linked.input_slots[i]] = Tensor();
    };
    run_scan(spec, inputs, outputs, hooks);
  };
}

}  // namespace tgc
