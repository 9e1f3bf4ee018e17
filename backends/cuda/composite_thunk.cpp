// Composite on CUDA: render + NVRTC + load once; per call plan_launch, scratch from the pool,
// launches in order on the stream; the interpreter on the host where the fast path does not
// apply or a kernel flags an error (it raises the reference's exact error).
#include "backends/cuda/composite_thunk.h"

#include <climits>
#include <memory>

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

  // Repeated calls usually see the same shapes: the last call's output shapes, fast-path
  // verdict and launch plan are kept and reused while the inputs' shapes (and, for the plan,
  // every operand's layout and alignment) are unchanged, so a steady-state call only checks.
  std::vector<Shape> last_in_shapes;
  bool shapes_known = false, fast = false;
  std::vector<Shape> out_shapes;
  std::vector<int64_t> layout_key, plan_key;  // operand dtypes, shapes, strides, address % 16
  cfam::LaunchPlan plan;
  std::vector<long long> blob;
  std::vector<void*> pointers, args;

  ~CompositeState() {
    if (error_flag) device->deallocate(error_flag, sizeof(int), device->default_stream());
  }

  cfam::Geometry geometry(const Tensor& t) const {
    return cfam::Geometry{t.dtype(), t.shape(), t.strides(), reinterpret_cast<uintptr_t>(t.raw_data())};
  }

  bool same_shapes(const std::vector<Tensor>& inputs) const {
    if (!shapes_known || inputs.size() != last_in_shapes.size()) return false;
    for (size_t j = 0; j < inputs.size(); ++j)
      if (inputs[j].shape() != last_in_shapes[j]) return false;
    return true;
  }

  void add_layout(const Tensor& t) {
    layout_key.push_back(static_cast<int64_t>(t.dtype()));
    layout_key.push_back(t.ndim());
    for (int d = 0; d < t.ndim(); ++d) layout_key.push_back(t.shape()[d]);
    for (int d = 0; d < t.ndim(); ++d) layout_key.push_back(t.strides()[d]);
    layout_key.push_back(static_cast<int64_t>(reinterpret_cast<uintptr_t>(t.raw_data()) % 16));
  }

  // The launch plan for these operands: the kept one when their layouts match the last
  // plan's, else a new one (false: no device plan, the host runs the node).
  bool plan_for(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs) {
    layout_key.clear();
    for (const Tensor& t : inputs) add_layout(t);
    for (const Tensor& t : outputs) add_layout(t);
    if (!plan_key.empty() && layout_key == plan_key) return true;
    plan_key.clear();
    std::vector<cfam::Geometry> in_geo, out_geo;
    for (const Tensor& t : inputs) in_geo.push_back(geometry(t));
    for (const Tensor& t : outputs) out_geo.push_back(geometry(t));
    std::optional<cfam::LaunchPlan> p = cfam::plan_launch(op->kernel(), in_geo, out_geo, device->limits());
    if (!p) return false;
    TGC_INTERNAL_CHECK(p->params.size() <= source.params_capacity,
                       "launch plan of " + label + " has more params than the kernel's blob holds");
    plan = std::move(*p);
    blob.assign(std::max<size_t>(source.params_capacity, 1), 0);
    for (size_t i = 0; i < plan.params.size(); ++i) blob[i] = static_cast<long long>(plan.params[i]);
    plan_key = layout_key;
    return true;
  }

  void run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
    const Kernel& kernel = op->kernel();
    if (!same_shapes(inputs)) {
      shapes_known = false;
      std::vector<Shape> in_shapes;
      for (const Tensor& t : inputs) in_shapes.push_back(t.shape());
      // Raises the reference's ShapeError / ValueError before anything is enqueued.
      out_shapes = kernel_output_shapes(kernel, in_shapes);
      fast = kernel_fast_path_applies(kernel, in_shapes);
      last_in_shapes = std::move(in_shapes);
      shapes_known = true;
    }
    if (!fast) return run_on_host(*op, *device, inputs, outputs);
    for (size_t k = 0; k < outputs.size(); ++k) ensure_output(outputs[k], kernel.outputs[k].dtype, out_shapes[k], *device);
    if (!plan_for(inputs, outputs)) return run_on_host(*op, *device, inputs, outputs);

    pointers.clear();
    for (const Tensor& t : inputs) pointers.push_back(t.raw_data());
    for (const Tensor& t : outputs) pointers.push_back(t.raw_data());
    void* scratch = plan.scratch_bytes ? device->allocate(plan.scratch_bytes, device->default_stream()) : nullptr;
    // Returned to the pool in stream order, after the launches that use it.
    struct ScratchRelease {
      CudaDevice* d;
      void* p;
      size_t n;
      ~ScratchRelease() { d->deallocate(p, n, d->default_stream()); }
    } release{device, scratch, plan.scratch_bytes};

    args.clear();
    for (void*& p : pointers) args.push_back(&p);
    args.push_back(&scratch);
    args.push_back(&error_flag);
    args.push_back(blob.data());
    for (const cfam::Launch& l : plan.launches) {
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
