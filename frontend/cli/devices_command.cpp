// tgc devices: one line per device kind of the design, saying whether it is built and
// which path runs it (for cpu: the LLVM JIT or the Kernel IR interpreter), and one per
// collective engine (MPI).
#include "frontend/cli/devices_command.h"

#include <fmt/core.h>

#include "backends/cpu/cpu_backend.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/nccl_entry.h"
#include "backends/opencl/opencl_backend.h"
#include "ops/blas/dnnl_gemm.h"
#include "runtime/comm/mpi_library.h"
#include "frontend/cli/errors.h"

namespace tgc::cli {

CLI::App* add_devices_command(CLI::App& app) {
  return app.add_subcommand("devices", "List the devices tgc can run on in this build");
}

int devices_command(const GlobalFlags& flags) {
  // Fused kernels run LLVM-JIT code or the Kernel IR interpreter; every other node runs its
  // reference perform (matrix products through OpenBLAS, and oneDNN when built with it:
  // ops/blas/product_library.h).
  fmt::print("cpu      available  ({}; other nodes: reference evaluator, BLAS through {})\n",
             cpu_backend_description(effective_config(flags)),
             dnnl_available() ? "OpenBLAS and oneDNN (float32 matrix products)" : "OpenBLAS");
  // Says why CUDA is unavailable (not built, no driver, no device) or lists the devices.
  fmt::print("{}\n", cuda_devices_description());
  // NCCL, which moves CUDA memory for collectives: its version and file, or why not loaded.
  fmt::print("{}\n", nccl_devices_description());
  // Each OpenCL device with its platform and device names, or why there is none.
  fmt::print("{}\n", opencl_devices_description());
  // The engine of host collectives across processes: Open MPI, loaded at run time.
  const MpiStatus& mpi = mpi_status();
  fmt::print("mpi      {}\n", mpi.available ? fmt::format("available  ({}, {})", mpi.version, mpi.library)
                                              : fmt::format("{}  ({})", mpi.built ? "unavailable" : "not built", mpi.reason));
  return kExitOk;
}

}  // namespace tgc::cli
