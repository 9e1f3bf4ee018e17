// The CUDA backend: the GPU layer's GpuBackend over the shared device-op rules, cuBLAS, cuDNN and
// user CUDA source on a CudaDevice; make_cuda_backend and the `tgc devices` description.
#include "backends/cuda/cuda_backend.h"

#include <fmt/core.h>

#include <map>
#include <mutex>

#include "backends/cuda/cublas_library.h"
#include "backends/cuda/cuda_device.h"
#include "backends/cuda/cuda_status.h"
#include "backends/cuda/toolkit_libraries.h"
#include "backends/cuda/cudnn_rules.h"
#include "backends/cuda/nccl_entry.h"
#include "backends/cuda/user_kernel_thunk.h"
#include "backends/gpu/blas_thunk.h"
#include "backends/gpu/collective_rules.h"
#include "backends/gpu/gpu_backend.h"
#include "backends/gpu/unopened_device.h"
#include "ops/custom/cuda_source_op.h"
#include "runtime/comm/world.h"
#include "runtime/error.h"

namespace tgc {

namespace {

bool is_cuda_source(const Node& n) { return dynamic_cast<const CudaSourceOp*>(&n.op()) != nullptr; }

ThunkFn cublas(gpu::GpuDevice& d, const Node& n, const Config& c) {
  auto& device = static_cast<cuda::CudaDevice&>(d);
  return gpu::make_blas_thunk(device, n, cuda::make_cublas_library(device, c));
}
ThunkFn cuda_source(gpu::GpuDevice& d, const Node& n, const Config& c) {
  return cuda::make_user_kernel_thunk(static_cast<cuda::CudaDevice&>(d), n, c);
}

// CUDA's own rules after the shared ones. Neither is self-contained: cuBLAS calls share the
// handle's workspace, and a user kernel may do anything, so those stay in order with each
// other in a recorded call.
const gpu::DeviceOpRule kCudaRules[] = {
    {"blas (cuBLAS)", gpu::blas_covers, gpu::blas_declines, cublas, false, 0, true},  // Gemm, Gemv, Dot, BatchedDot, Outer
    {"CUDA source", is_cuda_source, nullptr, cuda_source, false},
    gpu::collective_op_rule(),  // all_reduce, all_gather, ... through NCCL
};

// Those, then cuDNN's convolutions and pooling (cudnn_rules.h).
std::vector<gpu::DeviceOpRule> cuda_rules() {
  std::vector<gpu::DeviceOpRule> rules(std::begin(kCudaRules), std::end(kCudaRules));
  const std::span<const gpu::DeviceOpRule> dnn = cuda::cudnn_op_rules();
  rules.insert(rules.end(), dnn.begin(), dnn.end());
  return rules;
}

std::string gib(size_t bytes) { return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1u << 30)); }

}  // namespace

bool cuda_available() { return cuda::cuda_status().available; }

std::unique_ptr<Backend> make_cuda_backend(const Config& config, int ordinal) {
  // device=cuda without a number, in a process of a launch (mpirun, tgc launch): the device
  // of the rank's local rank, so that the ranks on one machine take one GPU each.
  if (config.device == "cuda" && launch_info().local_rank > 0) {
    ordinal = launch_info().local_rank;
    const cuda::CudaStatus& st = cuda::cuda_status();
    if (st.available && ordinal >= static_cast<int>(st.devices.size()))
      throw ConfigError(fmt::format("device=cuda in a launch means the device of the local rank, and local rank {} "
                                    "has none: this machine has {} CUDA device(s)",
                                    ordinal, st.devices.size()),
                        "function()",
                        "start at most one rank per GPU on each machine, or name the device (device=cuda:N)");
  }
  auto backend = std::make_unique<gpu::GpuBackend>("cuda", cuda::cuda_device(ordinal), config,
                                                   gpu::device_op_rules_with(cuda_rules()));
  // Collectives on CUDA devices go through NCCL when it loads (CommGroup asks the factory).
  register_nccl_comm_factory();
  return backend;
}

std::unique_ptr<Backend> make_cuda_inspection_backend(const Config& config, int ordinal) {
  // One per ordinal for the process, as the opened devices are (backends point at theirs).
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<gpu::UnopenedGpuDevice>> devices;
  std::lock_guard<std::mutex> lock(mutex);
  auto& device = devices[ordinal];
  if (!device)
    device = std::make_unique<gpu::UnopenedGpuDevice>(DeviceKind::Cuda, "cuda:" + std::to_string(ordinal),
                                                      cfam::Dialect::Cuda, cuda::cuda_status().reason);
  return std::make_unique<gpu::GpuBackend>("cuda", *device, config, gpu::device_op_rules_with(cuda_rules()));
}

std::string cuda_devices_description() {
  const cuda::CudaStatus& st = cuda::cuda_status();
  // The toolkit's libraries (loaded at run time: toolkit_libraries.h) follow the devices.
  const std::string libraries = cuda::nvrtc_description() + "\n" + cuda::cublas_description();
  if (!st.available) return "cuda     unavailable  (" + st.reason + ")\n" + libraries;
  std::string out;
  for (const cuda::CudaDeviceInfo& d : st.devices) {
    out += fmt::format("cuda:{}   available  ({}, sm_{}, {}, {} SMs; driver CUDA {}, runtime {})", d.ordinal, d.name,
                       d.arch(), gib(d.total_memory), d.multiprocessors, cuda::cuda_version_str(st.driver_version),
                       cuda::cuda_version_str(st.runtime_version));
    out += "\n";
  }
  return out + libraries;
}

}  // namespace tgc
