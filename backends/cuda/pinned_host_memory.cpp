// The size-cached pinned host allocator.
#include "backends/cuda/pinned_host_memory.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>

#include "backends/cuda/cuda_error.h"

namespace tgc::cuda {

namespace {
// Beyond this many cached bytes, released blocks are unpinned (cudaFreeHost is slow and may
// wait for the device, so the cache is generous).
constexpr size_t kMaxCached = size_t{1} << 31;
constexpr size_t kGranule = 4096;
}  // namespace

void* PinnedHostMemory::allocate(size_t bytes, Stream&) {
  const size_t cap = (std::max<size_t>(bytes, 1) + kGranule - 1) / kGranule * kGranule;
  std::lock_guard<std::mutex> lock(mutex_);
  // A cached block of at least the size, wasting at most half of it.
  auto it = free_.lower_bound(cap);
  if (it != free_.end() && it->first <= 2 * cap) {
    void* p = it->second;
    cached_ -= it->first;
    live_[static_cast<const char*>(p)] = it->first;
    free_.erase(it);
    return p;
  }
  void* p = nullptr;
  cudaError_t err = cudaHostAlloc(&p, cap, cudaHostAllocDefault);
  if (err == cudaErrorMemoryAllocation && !free_.empty()) {
    cudaGetLastError();
    for (auto& [size, block] : free_) cudaFreeHost(block);
    free_.clear();
    cached_ = 0;
    err = cudaHostAlloc(&p, cap, cudaHostAllocDefault);
  }
  check_cuda(err, "cudaHostAlloc");
  live_[static_cast<const char*>(p)] = cap;
  return p;
}

void PinnedHostMemory::deallocate(void* ptr, size_t, Stream&) {
  if (!ptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.find(static_cast<const char*>(ptr));
  if (it == live_.end()) return;  // not ours: never happens, and freeing it would be worse
  const size_t cap = it->second;
  live_.erase(it);
  if (cached_ + cap > kMaxCached) {
    cudaFreeHost(ptr);  // in a destructor: a failure cannot be reported, and leaks nothing new
    return;
  }
  free_.emplace(cap, ptr);
  cached_ += cap;
}

void PinnedHostMemory::copy_to_host(void* dst, const void* src, size_t bytes, Stream&) {
  if (bytes) std::memcpy(dst, src, bytes);
}
void PinnedHostMemory::copy_from_host(void* dst, const void* src, size_t bytes, Stream&) {
  if (bytes) std::memcpy(dst, src, bytes);
}
void PinnedHostMemory::copy_on_device(void* dst, const void* src, size_t bytes, Stream&) {
  if (bytes) std::memmove(dst, src, bytes);
}

bool PinnedHostMemory::contains(const void* ptr, size_t bytes) const {
  const char* p = static_cast<const char*>(ptr);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.upper_bound(p);
  if (it == live_.begin()) return false;
  --it;
  return p >= it->first && p + bytes <= it->first + it->second;
}

size_t PinnedHostMemory::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cached_;
}

PinnedHostMemory& pinned_host_memory() {
  // Never destroyed: tensors in static storage may release their blocks during exit.
  static PinnedHostMemory* memory = new PinnedHostMemory();
  return *memory;
}

}  // namespace tgc::cuda
