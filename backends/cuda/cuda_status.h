// Whether CUDA can run here, probed at run time through the CUDA runtime (which loads the
// driver itself): the devices, or why there are none, in the user's words.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tgc::cuda {

struct CudaDeviceInfo {
  int ordinal = 0;
  std::string name;             // "NVIDIA H100 80GB HBM3"
  int major = 0, minor = 0;     // compute capability
  size_t total_memory = 0;      // bytes
  int multiprocessors = 0;
  int max_threads_per_block = 0;
  int warp_size = 32;
  int arch() const { return major * 10 + minor; }  // 90 for sm_90
};

struct CudaStatus {
  bool available = false;
  // Why not, when not: "no NVIDIA driver found (libcuda.so.1 could not be loaded)",
  // "the NVIDIA driver is too old ...", "no CUDA device ...".
  std::string reason;
  int driver_version = 0;   // CUDA version the driver supports, 12040 for 12.4; 0 without one
  int runtime_version = 0;  // of the CUDA runtime tgc was built with
  std::vector<CudaDeviceInfo> devices;
};

// Probed once per process (thread-safe); never throws.
const CudaStatus& cuda_status();

// "12.4" from 12040.
std::string cuda_version_str(int version);

}  // namespace tgc::cuda
