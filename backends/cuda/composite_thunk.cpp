// Composite on CUDA: render + NVRTC + load once; per call the (cached) launch plan, scratch from the pool,
// launches in order on the stream (with the kernel's state, its error flag and reduction
// tickets, kept across calls); the interpreter on the host where the fast path does not
// apply or a kernel flags an error (it raises the reference's exact error).
#include "backends/cuda/composite_thunk.h"

#include <climits>
#include <memory>

#include "backends/c_family/call_planner.h"
#include "backends/c_family/kernel_render.h"
#include "backends/cuda/cuda_error.h"
#include "backends/cuda/cuda_module.h"
#include "backends/cuda/host_fallback.h"
#include "backends/cuda/nvrtc_compiler.h"
#include "compiler/kernel/interpreter.h"

namespace tgc::cuda {

namespace {

struct CompositeState {
  CudaDevice* device = nullptr;
  std::shared_ptr<const Composite> op;
  cfam::Source source;
  std::unique_ptr<CudaModule> module;
  // The kernel's state (kernel_render.h, the ABI): the error flag, zero unless a kernel
  // flagged an error, then `tickets` counters that every launch leaves at zero.
  void* state = nullptr;
  int64_t tickets = 0;
  UniquePinned host_flag;      // where the flag is read back (may_fail kernels only)
  std::string label;

  std::unique_ptr<cfam::CallPlanner> planner;  // output shapes and launch plan, kept across calls
  std::vector<void*> pointers, args;

  ~CompositeState() {
    if (state) device->deallocate(state, state_bytes(tickets), device->default_stream());
  }

  static size_t state_bytes(int64_t n) { return sizeof(int) * static_cast<size_t>(1 + n); }

  // A zeroed state with room for n tickets, in stream order. The flag it replaces is zero too
  // at a call's start (a flagged error is cleared before the call returns).
  void reserve_tickets(int64_t n) {
    if (state && n <= tickets) return;
    void* fresh = device->allocate(state_bytes(n), device->default_stream());
    TGC_CUDA_CHECK(cudaMemsetAsync(fresh, 0, state_bytes(n), device->stream()));
    if (state) device->deallocate(state, state_bytes(tickets), device->default_stream());
    state = fresh;
    tickets = n;
  }

  void run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
    const Kernel& kernel = op->kernel();
    bool fast = false;
    const std::vector<Shape>& out_shapes = planner->output_shapes(inputs, fast);
    if (!fast) return run_on_host(*op, *device, inputs, outputs);
    for (size_t k = 0; k < outputs.size(); ++k) ensure_output(outputs[k], kernel.outputs[k].dtype, out_shapes[k], *device);
    const cfam::LaunchPlan* plan = planner->plan(inputs, outputs);
    if (!plan) return run_on_host(*op, *device, inputs, outputs);
    reserve_tickets(plan->tickets);

    pointers.clear();
    for (const Tensor& t : inputs) pointers.push_back(t.raw_data());
    for (const Tensor& t : outputs) pointers.push_back(t.raw_data());
    void* scratch = plan->scratch_bytes ? device->allocate(plan->scratch_bytes, device->default_stream()) : nullptr;
    // Returned to the pool in stream order, after the launches that use it.
    struct ScratchRelease {
      CudaDevice* d;
      void* p;
      size_t n;
      ~ScratchRelease() { d->deallocate(p, n, d->default_stream()); }
    } release{device, scratch, plan->scratch_bytes};

    args.clear();
    for (void*& p : pointers) args.push_back(&p);
    args.push_back(&scratch);
    args.push_back(&state);
    args.push_back(const_cast<int64_t*>(planner->blob().data()));  // cuLaunchKernel only reads it
    for (const cfam::Launch& l : plan->launches) {
      TGC_INTERNAL_CHECK(l.blocks >= 1 && l.blocks <= INT_MAX, "launch of " + label + " with " +
                                                                   std::to_string(l.blocks) + " blocks");
      module->launch(*device, static_cast<size_t>(l.entry), dim3(static_cast<unsigned>(l.blocks)),
                     dim3(static_cast<unsigned>(l.threads)), l.shared_bytes, args.data());
    }
    if (!source.may_fail) return;
    // Only kernels that can flag an error (integer division by zero, ...) pay this wait.
    TGC_CUDA_CHECK(cudaMemcpyAsync(host_flag.get(), state, sizeof(int), cudaMemcpyDeviceToHost, device->stream()));
    device->synchronize_stream();
    if (*static_cast<int*>(host_flag.get()) == 0) return;
    TGC_CUDA_CHECK(cudaMemsetAsync(state, 0, sizeof(int), device->stream()));
    // The interpreter raises the reference's error (and computes the values if it has none).
    run_on_host(*op, *device, inputs, outputs);
  }
};

}  // namespace

ThunkFn make_composite_thunk(CudaDevice& device, std::shared_ptr<const Composite> op, const Config& config,
                             const std::string& label) {
  auto state = std::make_shared<CompositeState>();
  state->device = &device;
  state->op = std::move(op);
  state->label = label;
  cfam::RenderOptions render_options;
  render_options.dialect = cfam::Dialect::Cuda;
  render_options.fast_math = config.fast_math;
  render_options.float32_in_double = config.float32_math == "double";
  state->source = cfam::render(state->op->kernel(), render_options);
  state->planner = std::make_unique<cfam::CallPlanner>(state->op->kernel(), state->source.params_capacity,
                                                       device.limits(), label);
  NvrtcOptions options;
  options.arch = device.arch();
  options.fast_math = config.fast_math;
  const std::string cubin = nvrtc_compile(state->source.code, "kernel of '" + label + "'", options, config.cache_dir);
  state->module = std::make_unique<CudaModule>(cubin, state->source.entries, "kernel of '" + label + "'");
  DeviceGuard guard(device.ordinal());
  // Room for the tickets of every output count that runs the pass-1 schedule (fewer outputs
  // than twice the multiprocessors: launch_plan.cpp), so no call grows it while recording.
  state->reserve_tickets(state->op->kernel().is_reduction() ? 2 * int64_t{device.limits().multiprocessors} : 0);
  if (state->source.may_fail) state->host_flag = make_pinned(sizeof(int));
  return [state](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) { state->run(inputs, outputs); };
}

}  // namespace tgc::cuda
