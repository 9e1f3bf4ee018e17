// A loaded cubin: cudaLibraryLoadData (the runtime API's context-independent modules) and its
// entry points by name, launched on its device's stream with cudaLaunchKernel; the GPU
// layer's module (gpu_device.h) on CUDA.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "backends/cuda/cuda_device.h"
#include "backends/cuda/cuda_handles.h"
#include "backends/gpu/gpu_device.h"

namespace tgc::cuda {

class CudaModule final : public gpu::GpuModule {
 public:
  // Loads `cubin` and looks up every name of `entries` (extern "C" kernels). `label` names
  // the module in errors ("kernel of 'c = add(a, b)'").
  CudaModule(CudaDevice& device, const std::string& cubin, const std::vector<std::string>& entries, std::string label);

  size_t num_entries() const { return kernels_.size(); }
  cudaKernel_t kernel(size_t i) const { return kernels_.at(i); }
  const std::string& entry_name(size_t i) const { return names_.at(i); }

  // Enqueues entry `i` on the device's stream. `args` points at each argument's value, in the
  // kernel's parameter order. Launch errors are DeviceErrors naming the module and entry.
  void launch(size_t i, dim3 grid, dim3 block, size_t shared_bytes, void** args) const;
  // The same over a 1-D grid, each LaunchArg's value pointed at (an address argument's is
  // the pointer itself).
  void launch(size_t entry, int64_t blocks, int threads, size_t shared_bytes,
              std::span<const gpu::LaunchArg> args) override;

 private:
  CudaDevice& device_;
  UniqueLibrary library_;
  std::vector<cudaKernel_t> kernels_;
  std::vector<std::string> names_;
  std::string label_;
};

}  // namespace tgc::cuda
