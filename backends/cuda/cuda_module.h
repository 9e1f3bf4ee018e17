// A loaded cubin: cudaLibraryLoadData (the runtime API's context-independent modules) and its
// entry points by name, launched on its device's stream with cudaLaunchKernel; the GPU
// layer's module (gpu_device.h) on CUDA.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <functional>
#include <mutex>
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
  // A module built in two parts (gpu::ModuleSource::late): `cubin` defines the entries not
  // marked in `late`; the first launch of a marked one builds `late_cubin()`, which defines
  // those, and loads it, once (under a lock: several threads may launch).
  CudaModule(CudaDevice& device, const std::string& cubin, const std::vector<std::string>& entries, std::string label,
             std::vector<bool> late, std::function<std::string()> late_cubin);

  size_t num_entries() const { return kernels_.size(); }
  // Entry i's kernel, its part built and loaded first where it is a late one.
  cudaKernel_t kernel(size_t i) const;
  const std::string& entry_name(size_t i) const { return names_.at(i); }

  // Enqueues entry `i` on the device's stream. `args` points at each argument's value, in the
  // kernel's parameter order. Launch errors are DeviceErrors naming the module and entry.
  void launch(size_t i, dim3 grid, dim3 block, size_t shared_bytes, void** args) const;
  // The same over a 1-D grid, each LaunchArg's value pointed at (an address argument's is
  // the pointer itself).
  void launch(size_t entry, int64_t blocks, int threads, size_t shared_bytes,
              std::span<const gpu::LaunchArg> args) override;

 private:
  // Loads `cubin` and looks up the entries whose `late` flag equals `part` (all when `late`
  // is empty).
  UniqueLibrary load_part(const std::string& cubin, bool part) const;

  CudaDevice& device_;
  UniqueLibrary library_;
  mutable UniqueLibrary late_library_;
  // The late entries' are null until late_loaded_ (set after they are written, read before
  // they are: the lock-free path of kernel()).
  mutable std::vector<cudaKernel_t> kernels_;
  mutable std::atomic<bool> late_loaded_{false};
  std::vector<std::string> names_;
  std::string label_;
  std::vector<bool> late_;
  std::function<std::string()> late_cubin_;
  mutable std::mutex late_mutex_;
};

}  // namespace tgc::cuda
