// Composite on CUDA: render + NVRTC + load once; per call the (cached) launch plan, scratch from the pool,
// launches in order on the stream; the interpreter on the host where the fast path does not
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
  void* error_flag = nullptr;  // one device int, zero unless a kernel flagged an error
  UniquePinned host_flag;      // where the flag is read back (may_fail kernels only)
  std::string label;

  std::unique_ptr<cfam::CallPlanner> planner;  // output shapes and launch plan, kept across calls
  std::vector<void*> pointers, args;

  ~CompositeState() {
    if (error_flag) device->deallocate(error_flag, sizeof(int), device->default_stream());
  }

  void run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
    const Kernel& kernel = op->kernel();
    bool fast = false;
    const std::vector<Shape>& out_shapes = planner->output_shapes(inputs, fast);
    if (!fast) return run_on_host(*op, *device, inputs, outputs);
    for (size_t k = 0; k < outputs.size(); ++k) ensure_output(outputs[k], kernel.outputs[k].dtype, out_shapes[k], *device);
    const cfam::LaunchPlan* plan = planner->plan(inputs, outputs);
    if (!plan) return run_on_host(*op, *device, inputs, outputs);

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
    args.push_back(&error_flag);
    args.push_back(const_cast<int64_t*>(planner->blob().data()));  // cuLaunchKernel only reads it
    for (const cfam::Launch& l : plan->launches) {
      TGC_INTERNAL_CHECK(l.blocks >= 1 && l.blocks <= INT_MAX, "launch of " + label + " with " +
                                                                   std::to_string(l.blocks) + " blocks");
      module->launch(*device, static_cast<size_t>(l.entry), dim3(static_cast<unsigned>(l.blocks)),
                     dim3(static_cast<unsigned>(l.threads)), l.shared_bytes, args.data());
    }
    if (!source.may_fail) return;
    // Only kernels that can flag an error (integer division by zero, ...) pay this wait.
    TGC_CUDA_CHECK(cudaMemcpyAsync(host_flag.get(), error_flag, sizeof(int), cudaMemcpyDeviceToHost, device->stream()));
    device->synchronize_stream();
    if (*static_cast<int*>(host_flag.get()) == 0) return;
    TGC_CUDA_CHECK(cudaMemsetAsync(error_flag, 0, sizeof(int), device->stream()));
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
  state->error_flag = device.allocate(sizeof(int), device.default_stream());
  TGC_CUDA_CHECK(cudaMemsetAsync(state->error_flag, 0, sizeof(int), device.stream()));
  if (state->source.may_fail) state->host_flag = make_pinned(sizeof(int));
  return [state](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) { state->run(inputs, outputs); };
}

}  // namespace tgc::cuda
