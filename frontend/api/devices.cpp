// The devices of this build in words: the CPU backend's path, CUDA's devices, NCCL, cuDNN,
// OpenCL's devices and MPI (the engines of collectives).
#include <tgc/devices.h>

#include <fmt/format.h>

#include "backends/cpu/cpu_backend.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/nccl_entry.h"
#include "backends/opencl/opencl_backend.h"
#include "ops/blas/dnnl_gemm.h"
#include "runtime/comm/mpi_library.h"

namespace tgc {

std::vector<std::string> devices(const Config& config) {
  // Fused kernels run LLVM-JIT code or the Kernel IR interpreter; every other node runs its
  // reference perform (matrix products through OpenBLAS, and oneDNN when built with it:
  // ops/blas/product_library.h).
  std::string blas = dnnl_available() ? "OpenBLAS and oneDNN (float32 matrix products)" : "OpenBLAS";
  // The engine of host collectives across processes: Open MPI, loaded at run time.
  const MpiStatus& mpi = mpi_status();
  std::string mpi_line = "mpi      " + (mpi.available ? fmt::format("available  ({}, {})", mpi.version, mpi.library)
                                                      : fmt::format("{}  ({})", mpi.built ? "unavailable" : "not built",
                                                                    mpi.reason));
  return {"cpu      available  (" + cpu_backend_description(config) + "; other nodes: reference evaluator, BLAS through " +
              blas + ")",
          cuda_devices_description(),
          // NCCL, which moves CUDA memory for collectives: its version and file, or why not loaded.
          nccl_devices_description(),
          // cuDNN, which runs convolutions and pooling on CUDA devices: its version and file, or why not.
          cudnn_devices_description(), opencl_devices_description(), std::move(mpi_line)};
}

}  // namespace tgc
