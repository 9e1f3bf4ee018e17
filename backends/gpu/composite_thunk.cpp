// Composite on a GPU: render + load once (the module compiles the whole unit, or each entry
// on its first launch); per call the (cached) launch plan, scratch from the device's
// allocator, launches in order on the stream with the kernel's state (its error flag, and
// the reduction tickets of dialects whose last block combines, kept across calls); the
// interpreter on the host where the fast path does not apply or a kernel flags an error (it
// raises the reference's exact error).
#include "backends/gpu/composite_thunk.h"

#include <fmt/format.h>

#include <algorithm>

#include <chrono>

#include "backends/c_family/call_planner.h"
#include "backends/c_family/kernel_render.h"
#include "backends/gpu/host_fallback.h"
#include "runtime/compile_log.h"

namespace tgc::gpu {

namespace {

struct CompositeState {
  GpuDevice* device = nullptr;
  std::shared_ptr<const Composite> op;
  bool may_fail = false;  // some value can flag an error: each call reads the flag back
  std::unique_ptr<GpuModule> module;
  // The kernel's state (kernel_render.h, the ABI): the error flag, zero unless a kernel
  // flagged an error, then `tickets` counters that every launch leaves at zero.
  void* state = nullptr;
  int64_t tickets = 0;
  std::string label;

  std::unique_ptr<cfam::CallPlanner> planner;  // output shapes and launch plan, kept across calls
  std::vector<LaunchArg> args;                 // kept between calls: a call allocates nothing here
  // ensure_output_inplace's aliasable inputs: an elementwise kernel's all, a reduction's those
  // of its output space (its epilogue reads them at the element it stores; every fold reads
  // the others).
  std::vector<int> aliasable;

  ~CompositeState() {
    if (state) device->deallocate(state, state_bytes(tickets), device->default_stream());
  }

  static size_t state_bytes(int64_t n) { return sizeof(int) * static_cast<size_t>(1 + n); }

  // A zeroed state with room for n tickets, in stream order. The flag it replaces is zero too
  // at a call's start (a flagged error is cleared before the call returns).
  void reserve_tickets(int64_t n) {
    if (state && n <= tickets) return;
    void* fresh = device->allocate(state_bytes(n), device->default_stream());
    device->fill_zero(fresh, state_bytes(n));
    if (state) device->deallocate(state, state_bytes(tickets), device->default_stream());
    state = fresh;
    tickets = n;
  }

  void run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
    const Kernel& kernel = op->kernel();
    bool fast = false;
    const std::vector<Shape>& out_shapes = planner->output_shapes(inputs, fast);
    if (!fast) return run_on_host(*op, *device, inputs, outputs);
    // An inplace output keeps the input buffer handed to it when only that input holds it:
    // the output reads that input (Composite::make_inplace), so each element's store depends
    // on its one load by the same thread, at the same index, restrict notwithstanding.
    for (size_t k = 0; k < outputs.size(); ++k) {
      if (op->inplace_input(static_cast<int>(k)) >= 0)
        ensure_output_inplace(outputs[k], kernel.outputs[k].dtype, out_shapes[k], inputs, aliasable, *device);
      else
        ensure_output(outputs[k], kernel.outputs[k].dtype, out_shapes[k], *device);
    }
    const cfam::LaunchPlan* plan = planner->plan(inputs, outputs);
    if (!plan) return run_on_host(*op, *device, inputs, outputs);
    reserve_tickets(plan->tickets);

    void* scratch = plan->scratch_bytes ? device->allocate(plan->scratch_bytes, device->default_stream()) : nullptr;
    // Returned to the allocator in stream order, after the launches that use it.
    struct ScratchRelease {
      GpuDevice* d;
      void* p;
      size_t n;
      ~ScratchRelease() { d->deallocate(p, n, d->default_stream()); }
    } release{device, scratch, plan->scratch_bytes};

    // The ABI of kernel_render.h: operands (inputs, then outputs), scratch, state, params.
    args.clear();
    for (const Tensor& t : inputs) args.push_back(LaunchArg::operand(t.raw_data(), dtype_size(t.dtype())));
    for (const Tensor& t : outputs) args.push_back(LaunchArg::operand(t.raw_data(), dtype_size(t.dtype())));
    args.push_back(LaunchArg::buffer(scratch));
    args.push_back(LaunchArg::buffer(state));
    const std::vector<int64_t>& blob = planner->blob();
    args.push_back(LaunchArg::value(blob.data(), blob.size() * sizeof(int64_t)));
    for (const cfam::Launch& l : plan->launches)
      module->launch(static_cast<size_t>(l.entry), l.blocks, l.threads, l.shared_bytes, args);
    if (!may_fail) return;
    // Only kernels that can flag an error (integer division by zero, ...) pay this wait.
    if (device->read_int(state) == 0) return;
    device->fill_zero(state, sizeof(int));
    // The interpreter raises the reference's error (and computes the values if it has none).
    run_on_host(*op, *device, inputs, outputs);
  }
};

}  // namespace

cfam::Source render_composite(const GpuDevice& device, const Composite& op, const cfam::RenderOptions& options) {
  // Rendering is code generation even when the cache has the binary: the source is its key.
  const auto t0 = std::chrono::steady_clock::now();
  cfam::Source source = cfam::render(op.kernel(), options);
  if (CompileLog* log = current_compile_log())
    log->add_codegen(device_kind_name(device.kind()),
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), /*kernels=*/0);
  return source;
}

cfam::RenderOptions composite_render_options(const GpuDevice& device, const Config& config, const Composite& op) {
  cfam::RenderOptions options;
  options.name_prefix = fmt::format("tgc_{:016x}", op.kernel().hash());
  options.dialect = device.dialect();
  options.fast_math = config.fast_math;
  options.float32_in_double = config.float32_math == "double";
  return options;
}

ModuleSource composite_module_source(std::shared_ptr<const Composite> op, const cfam::RenderOptions& options,
                                     const cfam::Source& whole, const Config& config, const std::string& label,
                                     const std::vector<bool>& expected_entries) {
  ModuleSource module_source;
  module_source.label = "kernel of '" + label + "'";
  module_source.entries = whole.entries;
  module_source.fast_math = config.fast_math;
  module_source.render = [op, options, code = whole.code](int only_entry) {
    if (only_entry < 0) return code;
    cfam::RenderOptions one = options;
    one.only_entry = only_entry;
    return cfam::render(op->kernel(), one).code;
  };
  // Late: the entries no call is expected to launch; without an expectation, the 64-bit-index
  // ones (only operands of 2^31 elements or more take them, and they are half of the code).
  std::vector<bool> late = whole.wide_index;
  if (expected_entries.size() == late.size())
    for (size_t e = 0; e < late.size(); ++e) late[e] = !expected_entries[e];
  if (std::find(late.begin(), late.end(), true) != late.end()) {
    module_source.late = late;
    module_source.render_part = [op, options, late](bool part) {
      cfam::RenderOptions one_part = options;
      one_part.only_entries.assign(late.size(), false);
      for (size_t e = 0; e < late.size(); ++e) one_part.only_entries[e] = late[e] == part;
      return cfam::render(op->kernel(), one_part).code;
    };
  }
  module_source.cache_dir = config.cache_dir;
  return module_source;
}

ThunkFn make_composite_thunk(GpuDevice& device, std::shared_ptr<const Composite> op, const Config& config,
                             const std::string& label, const cfam::Source* rendered,
                             const std::vector<bool>& expected_entries) {
  auto state = std::make_shared<CompositeState>();
  state->device = &device;
  state->op = std::move(op);
  state->label = label;
  const Kernel& kernel = state->op->kernel();
  for (size_t i = 0; i < kernel.inputs.size(); ++i)
    if (!kernel.is_reduction() || kernel.inputs[i].in_output_space) state->aliasable.push_back(static_cast<int>(i));
  const cfam::RenderOptions render_options = composite_render_options(device, config, *state->op);
  const cfam::Source source = rendered ? *rendered : render_composite(device, *state->op, render_options);
  state->may_fail = source.may_fail;
  const cfam::DeviceLimits limits = device.limits();
  state->planner = std::make_unique<cfam::CallPlanner>(state->op->kernel(), source.params_capacity, limits, label);
  state->module =
      device.load_module(composite_module_source(state->op, render_options, source, config, label, expected_entries));
  // Where the last block combines, room for the tickets of every output count that runs the
  // pass-1 schedule (fewer outputs than twice the multiprocessors: launch_plan.cpp), so no
  // call grows it while recording.
  const bool tickets = state->op->kernel().is_reduction() && limits.long_reduction.last_block_combines;
  state->reserve_tickets(tickets ? 2 * int64_t{limits.multiprocessors} : 0);
  return [state](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) { state->run(inputs, outputs); };
}

}  // namespace tgc::gpu
