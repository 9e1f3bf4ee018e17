// The run-time CUDA probe: is a driver loadable, is it recent enough, which devices are there.
#include "backends/cuda/cuda_status.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include "backends/cuda/cuda_error.h"
#include "backends/cuda/toolkit_libraries.h"

namespace tgc::cuda {

std::string cuda_version_str(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

namespace {

// The runtime reports a missing driver and an old one with the same code
// (cudaErrorInsufficientDriver), so the driver library is looked for first: loading it here
// is what the runtime does too, and it tells the two cases apart for the user.
bool driver_library_loadable(std::string& why) {
  void* handle = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!handle) {
    const char* err = dlerror();
    why = err ? err : "not found";
    return false;
  }
  dlclose(handle);
  return true;
}

CudaStatus probe() {
  CudaStatus st;
  cudaRuntimeGetVersion(&st.runtime_version);
  std::string dl_error;
  if (!driver_library_loadable(dl_error)) {
    st.reason = "no NVIDIA driver found (libcuda.so.1 could not be loaded: " + dl_error + ")";
    return st;
  }
  if (cudaDriverGetVersion(&st.driver_version) != cudaSuccess) st.driver_version = 0;
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaErrorInsufficientDriver || (st.driver_version && st.driver_version < st.runtime_version)) {
    st.reason = "the NVIDIA driver is too old: it supports CUDA " + cuda_version_str(st.driver_version) +
                ", this build of tgc needs CUDA " + cuda_version_str(st.runtime_version) +
                " or newer (update the driver)";
    return st;
  }
  if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0)) {
    st.reason = "no CUDA device: the NVIDIA driver is loaded but sees no GPU (check nvidia-smi and "
                "CUDA_VISIBLE_DEVICES)";
    return st;
  }
  if (err != cudaSuccess) {
    st.reason = "CUDA could not be initialised: " + cuda_error_text(err);
    return st;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    CudaDeviceInfo d;
    d.ordinal = i;
    d.name = prop.name;
    d.major = prop.major;
    d.minor = prop.minor;
    d.total_memory = prop.totalGlobalMem;
    d.multiprocessors = prop.multiProcessorCount;
    d.max_threads_per_block = prop.maxThreadsPerBlock;
    d.warp_size = prop.warpSize;
    st.devices.push_back(std::move(d));
  }
  st.available = !st.devices.empty();
  if (!st.available) st.reason = "no CUDA device could be queried";
  // Kernels and products need the toolkit's libraries, loaded at run time (toolkit_libraries.h).
  for (const auto& [name, lib] : {std::pair{"NVRTC", &nvrtc_status()}, std::pair{"cuBLAS", &cublas_status()}})
    if (st.available && !lib->available) {
      st.available = false;
      st.reason = fmt::format("the NVIDIA driver sees {} CUDA device(s), but {} could not be loaded: {}",
                              st.devices.size(), name, lib->reason);
    }
  // The probe must not leave an error behind for the next unrelated check.
  cudaGetLastError();
  return st;
}

}  // namespace

const CudaStatus& cuda_status() {
  static const CudaStatus status = probe();
  return status;
}

}  // namespace tgc::cuda
