// Composite on OpenCL: each entry built into its own program on its first launch; per call
// the (cached) launch plan, scratch from the caching allocator, launches in order on the
// queue with every operand as (buffer, element offset);
// the interpreter on the host where the fast path does not apply or a kernel flags an error
// (it raises the reference's exact error).
#include "backends/opencl/composite_thunk.h"

#include "backends/c_family/call_planner.h"
#include "backends/c_family/kernel_render.h"
#include "backends/opencl/host_fallback.h"
#include "backends/opencl/opencl_program.h"
#include "compiler/kernel/interpreter.h"

namespace tgc::opencl {

namespace {

struct CompositeState {
  OpenCLDevice* device = nullptr;
  std::shared_ptr<const Composite> op;
  cfam::RenderOptions render_options;
  cfam::Source source;  // every entry's name (the full translation unit is rendered only for its names)
  // One program per entry, built on its first launch: a call launches one or two of a
  // kernel's entries, and some OpenCL compilers (PoCL) spend about a second of CPU on each
  // kernel of a program, so building the eight entries up front would cost several times
  // what a function ever runs.
  std::vector<std::unique_ptr<OpenCLProgram>> programs;
  bool fast_math = false;
  std::string cache_dir;
  std::unique_ptr<cfam::CallPlanner> planner;  // output shapes and launch plan, kept across calls
  void* error_flag = nullptr;  // one device int, zero unless a kernel flagged an error
  std::string label;

  ~CompositeState() {
    if (error_flag) device->deallocate(error_flag, sizeof(cl_int), device->default_stream());
  }

  OpenCLProgram& program(int entry) {
    std::unique_ptr<OpenCLProgram>& p = programs.at(static_cast<size_t>(entry));
    if (!p) {
      cfam::RenderOptions options = render_options;
      options.only_entry = entry;
      const cfam::Source one = cfam::render(op->kernel(), options);
      p = std::make_unique<OpenCLProgram>(*device, one.code, std::vector<std::string>{one.entries.at(entry)},
                                          "kernel of '" + label + "'", fast_math, cache_dir);
    }
    return *p;
  }

  void run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
    const Kernel& kernel = op->kernel();
    bool fast = false;
    const std::vector<Shape>& out_shapes = planner->output_shapes(inputs, fast);
    if (!fast) return run_on_host(*op, *device, inputs, outputs);
    for (size_t k = 0; k < outputs.size(); ++k) ensure_output(outputs[k], kernel.outputs[k].dtype, out_shapes[k], *device);
    const cfam::LaunchPlan* plan = planner->plan(inputs, outputs);
    if (!plan) return run_on_host(*op, *device, inputs, outputs);

    // Each operand as its buffer and its offset in elements (the ABI in kernel_render.h).
    // The vectors are the calling thread's, kept between calls: a call allocates nothing here.
    thread_local std::vector<BufferRef> refs;
    thread_local std::vector<cl_ulong> offsets;
    thread_local std::vector<KernelArg> args;
    refs.clear();
    offsets.clear();
    args.clear();
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

    const std::vector<int64_t>& blob = planner->blob();
    static_assert(sizeof(int64_t) == sizeof(cl_long));
    for (const BufferRef& r : refs) args.push_back({sizeof(cl_mem), &r.mem});
    args.push_back({sizeof(cl_mem), &scratch_ref.mem});
    args.push_back({sizeof(cl_mem), &flag_ref.mem});
    args.push_back({blob.size() * sizeof(int64_t), blob.data()});
    for (const cl_ulong& o : offsets) args.push_back({sizeof(cl_ulong), &o});
    for (const cfam::Launch& l : plan->launches) {
      TGC_INTERNAL_CHECK(l.blocks >= 1 && l.shared_bytes == 0,
                         "launch of " + label + " with " + std::to_string(l.blocks) + " blocks");
      program(l.entry).launch(0, static_cast<size_t>(l.blocks), static_cast<size_t>(l.threads), args);
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
  state->render_options.dialect = cfam::Dialect::OpenCL;
  state->render_options.fast_math = config.fast_math;
  state->render_options.float32_in_double = config.float32_math == "double";
  state->fast_math = config.fast_math;
  state->cache_dir = config.cache_dir;
  state->source = cfam::render(state->op->kernel(), state->render_options);
  state->programs.resize(state->source.entries.size());
  state->planner = std::make_unique<cfam::CallPlanner>(state->op->kernel(), state->source.params_capacity,
                                                       device.limits(), label);
  state->error_flag = device.allocate(sizeof(cl_int), device.default_stream());
  const cl_int zero = 0;
  device.copy_from_host(state->error_flag, &zero, sizeof(zero), device.default_stream());
  return [state](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) { state->run(inputs, outputs); };
}

}  // namespace tgc::opencl
