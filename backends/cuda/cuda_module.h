// A loaded cubin: cudaLibraryLoadData (the runtime API's context-independent modules) and its
// entry points by name, launched on a device's stream with cudaLaunchKernel.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "backends/cuda/cuda_device.h"
#include "backends/cuda/cuda_handles.h"

namespace tgc::cuda {

class CudaModule {
 public:
  // Loads `cubin` and looks up every name of `entries` (extern "C" kernels). `label` names
  // the module in errors ("kernel for 'c = add(a, b)'").
  CudaModule(const std::string& cubin, const std::vector<std::string>& entries, std::string label);

  size_t num_entries() const { return kernels_.size(); }
  cudaKernel_t kernel(size_t i) const { return kernels_.at(i); }
  const std::string& entry_name(size_t i) const { return names_.at(i); }

  // Enqueues entry `i` on `device`'s stream. `args` points at each argument's value, in the
  // kernel's parameter order. Launch errors are DeviceErrors naming the module and entry.
  void launch(CudaDevice& device, size_t i, dim3 grid, dim3 block, size_t shared_bytes, void** args) const;

 private:
  UniqueLibrary library_;
  std::vector<cudaKernel_t> kernels_;
  std::vector<std::string> names_;
  std::string label_;
};

}  // namespace tgc::cuda
