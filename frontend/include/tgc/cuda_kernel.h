// Public API: ops from raw CUDA source (PyCUDA's SourceModule). Give the source, the
// extern "C" entry, what the op returns and how to launch it for given inputs; the result is
// an op usable in graphs like any other. On device=cuda it runs on the GPU (compiled by
// NVRTC once, when the function is compiled); on device=cpu running it is an error saying
// that the op needs device=cuda.
//
//   CudaKernelSpec spec;
//   spec.name = "PyCUDADoubleOp"; spec.entry = "double_it"; spec.source = R"(...)";
//   spec.output_types = [](auto& in) { return std::vector<Type>{in[0]}; };
//   spec.output_shapes = [](auto& in) { return std::vector<Shape>{in[0]}; };
//   spec.launch = [](auto& in, auto& out) { ... return CudaLaunchConfig{grid, block, 0, args}; };
//   Var y = CudaKernel(spec)({x})[0];
#pragma once

#include <memory>
#include <vector>

#include <tgc/var.h>

#include "ops/custom/cuda_source_op.h"
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

class CudaKernel {
 public:
  // Checks the spec (ValueError naming what is missing); the source is compiled later, by
  // function() on device=cuda.
  explicit CudaKernel(CudaKernelSpec spec);
  // The op applied to `inputs`: its outputs, typed by spec.output_types.
  std::vector<Var> operator()(const std::vector<Var>& inputs) const;

 private:
  std::shared_ptr<const CudaSourceOp> op_;
};

TGC_API_END
}  // namespace tgc
