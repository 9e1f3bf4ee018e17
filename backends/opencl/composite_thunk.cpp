// Composite on OpenCL: render + build once; per call plan_launch, scratch from the caching
// allocator, launches in order on the queue with every operand as (buffer, element offset);
// the interpreter on the host where the fast path does not apply or a kernel flags an error
// (it raises the reference's exact error).
#include "backends/opencl/composite_thunk.h"

#include "backends/c_family/kernel_render.h"
#include "backends/opencl/host_fallback.h"
#include "backends/opencl/opencl_program.h"
#include "compiler/kernel/interpreter.h"

namespace tgc::opencl {

namespace {

struct CompositeState {
  OpenCLDevice* device = nullptr;
  std::shared_ptr<const Composite> op;
  cfam::Source source;
  std::unique_ptr<OpenCLProgram> program;
  void* error_flag = nullptr;  // one device int, zero unless a kernel flagged an error
  std::string label;

  ~CompositeState() {
    if (error_flag) device->deallocate(error_flag, sizeof(cl_int), device->default_stream());
  }

  static cfam::Geometry geometry(const Tensor& t) {
    return cfam::Geometry{t.dtype(), t.shape(), t.strides(), reinterpret_cast<uintptr_t>(t.raw_data())};
  }

  void run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
    const Kernel& kernel = op->kernel();
    std::vector<Shape> in_shapes;
    for (const Tensor& t : inputs) in_shapes.push_back(t.shape());
    // Raises the reference's ShapeError / ValueError before anything is enqueued.
    const std::vector<Shape> out_shapes = kernel_output_shapes(kernel, in_shapes);
    if (!kernel_fast_path_applies(kernel, in_shapes)) return run_on_host(*op, *device, inputs, outputs);
    for (size_t k = 0; k < outputs.size(); ++k) ensure_output(outputs[k], kernel.outputs[k].dtype, out_shapes[k], *device);

    std::vector<cfam::Geometry> in_geo, out_geo;
    for (const Tensor& t : inputs) in_geo.push_back(geometry(t));
    for (const Tensor& t : outputs) out_geo.push_back(geometry(t));
    std::optional<cfam::LaunchPlan> plan = cfam::plan_launch(kernel, in_geo, out_geo, device->limits());
    if (!plan) return run_on_host(*op, *device, inputs, outputs);
    TGC_INTERNAL_CHECK(plan->params.size() <= source.params_capacity,
                       "launch plan of " + label + " has more params than the kernel's blob holds");

    std::vector<cl_long> blob(source.params_capacity, 0);
    for (size_t i = 0; i < plan->params.size(); ++i) blob[i] = static_cast<cl_long>(plan->params[i]);
    // Each operand as its buffer and its offset in elements (the ABI in kernel_render.h).
    std::vector<BufferRef> refs;
    std::vector<cl_ulong> offsets;
    auto add_operand = [&](const Tensor& t) {
      const BufferRef r = device->resolve(t.raw_data());
      const size_t esize = dtype_size(t.dtype());
      TGC_INTERNAL_CHECK(r.offset % esize == 0, "operand of " + label + " not aligned to its element size");
      refs.push_back(r);
      offsets.push_back(r.offset / esize);
    };
    for (const Tensor& t : inputs) add_operand(t);
    for (const Tensor& t : outputs) add_operand(t);
    void* scratch = plan->scratch_bytes ? device->allocate(plan->scratch_bytes, device->default_stream()) : nullptr;
    // Back to the free list after the launches are enqueued: the queue is in order.
    struct ScratchRelease {
      OpenCLDevice* d;
      void* p;
      size_t n;
      ~ScratchRelease() { d->deallocate(p, n, d->default_stream()); }
    } release{device, scratch, plan->scratch_bytes};
    const BufferRef scratch_ref = device->resolve(scratch), flag_ref = device->resolve(error_flag);

    std::vector<KernelArg> args;
    for (const BufferRef& r : refs) args.push_back({sizeof(cl_mem), &r.mem});
    args.push_back({sizeof(cl_mem), &scratch_ref.mem});
    args.push_back({sizeof(cl_mem), &flag_ref.mem});
    args.push_back({blob.size() * sizeof(cl_long), blob.data()});
    for (const cl_ulong& o : offsets) args.push_back({sizeof(cl_ulong), &o});
    for (const cfam::Launch& l : plan->launches) {
      TGC_INTERNAL_CHECK(l.blocks >= 1 && l.shared_bytes == 0,
                         "launch of " + label + " with " + std::to_string(l.blocks) + " blocks");
      program->launch(static_cast<size_t>(l.entry), static_cast<size_t>(l.blocks), static_cast<size_t>(l.threads),
                      args);
    }
    if (!source.may_fail) return;
    // Only kernels that can flag an error (integer division by zero, ...) pay this wait.
    cl_int flag = 0;
    device->copy_to_host(&flag, error_flag, sizeof(flag), device->default_stream());
    if (flag == 0) return;
    const cl_int zero = 0;
    device->copy_from_host(error_flag, &zero, sizeof(zero), device->default_stream());
    // The interpreter raises the reference's error (and computes the values if it has none).
    run_on_host(*op, *device, inputs, outputs);
  }
};

}  // namespace

ThunkFn make_composite_thunk(OpenCLDevice& device, std::shared_ptr<const Composite> op, const Config& config,
                             const std::string& label) {
  auto state = std::make_shared<CompositeState>();
  state->device = &device;
  state->op = std::move(op);
  state->label = label;
  cfam::RenderOptions render_options;
  render_options.dialect = cfam::Dialect::OpenCL;
  render_options.fast_math = config.fast_math;
  render_options.float32_in_double = config.float32_math == "double";
  state->source = cfam::render(state->op->kernel(), render_options);
  state->program = std::make_unique<OpenCLProgram>(device, state->source.code, state->source.entries,
                                                   "kernel of '" + label + "'", config.fast_math, config.cache_dir);
  state->error_flag = device.allocate(sizeof(cl_int), device.default_stream());
  const cl_int zero = 0;
  device.copy_from_host(state->error_flag, &zero, sizeof(zero), device.default_stream());
  return [state](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) { state->run(inputs, outputs); };
}

}  // namespace tgc::opencl
