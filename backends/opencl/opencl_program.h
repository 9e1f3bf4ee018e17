// An OpenCL C translation unit built for one device: clBuildProgram from source, or from the
// program binary the shared kernel cache kept (key: source hash, platform, device, driver
// version, options); its entry points as kernels, launched on the device's queue. And the GPU
// layer's module on OpenCL (OpenCLModule): one such program per entry, built on its first
// launch.
#pragma once

#include <CL/cl.h>

#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "backends/gpu/gpu_device.h"
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

// A gpu::ModuleSource on OpenCL. Each entry is built into its own program (the source
// rendered with only that entry) on its first launch: a call launches one or two of a
// kernel's entries, and some OpenCL compilers (PoCL) spend about a second of CPU on each
// kernel of a program, so building every entry up front would cost several times what a
// function ever runs.
class OpenCLModule final : public gpu::GpuModule {
 public:
  OpenCLModule(OpenCLDevice& device, gpu::ModuleSource source);

  // Address arguments become their buffers (cl_mem); operands' element offsets follow every
  // other argument, in order (the C-family ABI). Dynamic local memory is not supported
  // (shared_bytes must be 0: entries declare theirs).
  void launch(size_t entry, int64_t blocks, int threads, size_t shared_bytes,
              std::span<const gpu::LaunchArg> args) override;

  // Whether entry `entry` has been built (by a launch).
  bool built(size_t entry) const;

 private:
  OpenCLProgram& program(size_t entry);

  OpenCLDevice& device_;
  gpu::ModuleSource source_;
  mutable std::mutex mutex_;  // programs_
  std::vector<std::unique_ptr<OpenCLProgram>> programs_;
};

}  // namespace tgc::opencl
