// User CUDA source on the device: compile once, launch per the op's rule.
#include "backends/cuda/user_kernel_thunk.h"

#include <cstring>

#include "backends/cuda/cuda_module.h"
#include "backends/cuda/nvrtc_compiler.h"
#include "ops/custom/cuda_source_op.h"

namespace tgc::cuda {

namespace {

struct UserKernelState {
  CudaDevice* device;
  std::shared_ptr<const CudaSourceOp> op;
  std::unique_ptr<CudaModule> module;
  std::string label;

  void run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
    const CudaKernelSpec& spec = op->spec();
    std::vector<Shape> shapes;
    for (const Tensor& t : inputs) shapes.push_back(t.shape());
    const std::vector<Shape> out_shapes = op->infer_shapes(shapes);
    // The dtypes the graph was typed with (the output-type rule), at this call's shapes.
    for (size_t k = 0; k < outputs.size(); ++k) ensure_output(outputs[k], out_dtypes[k], out_shapes[k], *device);
    const CudaLaunchConfig launch = spec.launch(inputs, outputs);
    // Each argument's bytes in an 8-byte cell; cudaLaunchKernel reads as many as its type has.
    std::vector<std::array<unsigned char, 8>> cells(launch.args.size());
    std::vector<void*> args;
    for (size_t i = 0; i < launch.args.size(); ++i) {
      const CudaKernelArg& a = launch.args[i];
      auto put = [&](const auto& v) { std::memcpy(cells[i].data(), &v, sizeof v); };
      auto tensor_ptr = [&](const std::vector<Tensor>& ts, const char* kind) {
        if (a.index < 0 || a.index >= static_cast<int>(ts.size()))
          throw ValueError("cuda_kernel '" + spec.name + "': argument " + std::to_string(i) + " names " + kind + " " +
                               std::to_string(a.index) + " of " + std::to_string(ts.size()),
                           label, "CudaKernelArg::input(i) / output(i) take an index of an existing tensor");
        void* p = ts[static_cast<size_t>(a.index)].raw_data();
        put(p);
      };
      switch (a.kind) {
        case CudaKernelArg::Kind::Input: tensor_ptr(inputs, "input"); break;
        case CudaKernelArg::Kind::Output: tensor_ptr(outputs, "output"); break;
        case CudaKernelArg::Kind::Int32: put(static_cast<int32_t>(a.integer)); break;
        case CudaKernelArg::Kind::Int64: put(static_cast<int64_t>(a.integer)); break;
        case CudaKernelArg::Kind::Float32: put(static_cast<float>(a.real)); break;
        case CudaKernelArg::Kind::Float64: put(a.real); break;
      }
      args.push_back(cells[i].data());
    }
    const auto& g = launch.grid;
    const auto& b = launch.block;
    if (g[0] == 0 || g[1] == 0 || g[2] == 0) return;  // nothing to do (an empty input)
    module->launch(0, dim3(g[0], g[1], g[2]), dim3(b[0], b[1], b[2]), launch.shared_bytes, args.data());
  }

  std::vector<DType> out_dtypes;
};

}  // namespace

ThunkFn make_user_kernel_thunk(CudaDevice& device, const Node& node, const Config& config) {
  auto op = std::dynamic_pointer_cast<const CudaSourceOp>(node.op_ptr());
  TGC_INTERNAL_CHECK(op != nullptr, "node " + node.describe() + " is not a CudaSourceOp");
  auto state = std::make_shared<UserKernelState>();
  state->device = &device;
  state->op = op;
  state->label = node.describe();
  for (int k = 0; k < node.num_outputs(); ++k) state->out_dtypes.push_back(node.output_raw(k)->type().dtype);
  NvrtcOptions options;
  options.arch = device.arch();
  options.fast_math = config.fast_math;
  options.extra = op->spec().nvrtc_options;
  const std::string cubin = nvrtc_compile(op->spec().source, op->spec().name, options, config.cache_dir);
  state->module = std::make_unique<CudaModule>(device, cubin, std::vector<std::string>{op->spec().entry},
                                               "CUDA source of op '" + op->spec().name + "'");
  return [state](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) { state->run(inputs, outputs); };
}

}  // namespace tgc::cuda
