// Host memory that is page-locked: a Device of kind Host (tensors in it are ordinary host
// tensors) whose buffers the GPU copies into directly, at full bandwidth and asynchronously.
// DeviceToHost thunks put their results here. Blocks are cached by size, since pinning
// memory (cudaHostAlloc) costs far more than a copy.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>

#include "runtime/device.h"

namespace tgc::cuda {

class PinnedHostMemory final : public Device {
 public:
  DeviceKind kind() const override { return DeviceKind::Host; }
  std::string name() const override { return "cpu"; }
  void* allocate(size_t bytes, Stream& stream) override;
  void deallocate(void* ptr, size_t bytes, Stream& stream) override;
  void copy_to_host(void* dst, const void* src, size_t bytes, Stream& stream) override;
  void copy_from_host(void* dst, const void* src, size_t bytes, Stream& stream) override;
  void copy_on_device(void* dst, const void* src, size_t bytes, Stream& stream) override;
  Stream& default_stream() override { return host_device().default_stream(); }

  // Whether [ptr, ptr + bytes) lies inside one live block of this allocator.
  bool contains(const void* ptr, size_t bytes) const;
  size_t cached_bytes() const;

 private:
  mutable std::mutex mutex_;
  std::map<const char*, size_t> live_;          // block start -> capacity
  std::multimap<size_t, void*> free_;           // capacity -> block
  size_t cached_ = 0;                           // bytes in free_
};

// The process-wide pinned host memory (created on first use; needs a working CUDA).
PinnedHostMemory& pinned_host_memory();

}  // namespace tgc::cuda
