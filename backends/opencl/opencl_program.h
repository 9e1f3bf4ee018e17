// An OpenCL C translation unit built for one device: clBuildProgram from source, or from the
// program binary the shared kernel cache kept (key: source hash, platform, device, driver
// version, options); its entry points as kernels, launched on the device's queue.
#pragma once

#include <CL/cl.h>

#include <mutex>
#include <string>
#include <vector>

#include "backends/opencl/opencl_device.h"

namespace tgc::opencl {

// One kernel argument: a device address (resolved to buffer + offset by the caller), or
// bytes passed by value.
struct KernelArg {
  size_t size = 0;
  const void* value = nullptr;  // for a buffer: points at the cl_mem (or at nullptr)
};

class OpenCLProgram {
 public:
  // Builds `source` (fast_math: -cl-fast-relaxed-math) and creates a kernel per name of
  // `entries`. `label` names the program in errors ("kernel of 'c = add(a, b)'"). A build
  // failure is an InternalError carrying the build log and the numbered source.
  // `cache_dir` as in runtime/kernel_cache.h ("" keeps binaries in memory only).
  OpenCLProgram(OpenCLDevice& device, const std::string& source, const std::vector<std::string>& entries,
                std::string label, bool fast_math, const std::string& cache_dir);
  ~OpenCLProgram();
  OpenCLProgram(const OpenCLProgram&) = delete;
  OpenCLProgram& operator=(const OpenCLProgram&) = delete;

  size_t num_entries() const { return kernels_.size(); }
  const std::string& entry_name(size_t i) const { return names_.at(i); }
  // Whether the program came from the kernel cache (no OpenCL C compile).
  bool from_cache() const { return from_cache_; }

  // Enqueues entry `i` over `blocks` work-groups of `threads` work-items. Kernels hold their
  // arguments, so setting them and enqueueing happen under one lock.
  void launch(size_t i, size_t blocks, size_t threads, const std::vector<KernelArg>& args);

 private:
  OpenCLDevice& device_;
  cl_program program_ = nullptr;
  std::vector<cl_kernel> kernels_;
  std::vector<std::string> names_;
  std::string label_;
  bool from_cache_ = false;
  std::mutex mutex_;
};

}  // namespace tgc::opencl
