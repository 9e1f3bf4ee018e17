// The devices of this build in words: the CPU backend's path, CUDA's and OpenCL's devices.
#include <tgc/devices.h>

#include "backends/cpu/cpu_backend.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/opencl/opencl_backend.h"
#include "ops/blas/dnnl_gemm.h"

namespace tgc {

std::vector<std::string> devices(const Config& config) {
  // Fused kernels run LLVM-JIT code or the Kernel IR interpreter; every other node runs its
  // reference perform (matrix products through OpenBLAS, and oneDNN when built with it:
  // ops/blas/product_library.h).
  std::string blas = dnnl_available() ? "OpenBLAS and oneDNN (float32 matrix products)" : "OpenBLAS";
  return {"cpu      available  (" + cpu_backend_description(config) + "; other nodes: reference evaluator, BLAS through " +
              blas + ")",
          cuda_devices_description(), opencl_devices_description()};
}

}  // namespace tgc
