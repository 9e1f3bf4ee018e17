// RAII owners of CUDA objects (streams, events, memory pools, libraries, cuBLAS handles,
// pinned host memory): each is released exactly once, by its destructor. Destructors never
// throw; a failing release (e.g. at process exit, after the runtime unloaded) is ignored.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <type_traits>

struct cublasContext;

namespace tgc::cuda {

struct StreamDeleter {
  void operator()(cudaStream_t s) const noexcept { cudaStreamDestroy(s); }
};
struct EventDeleter {
  void operator()(cudaEvent_t e) const noexcept { cudaEventDestroy(e); }
};
struct PoolDeleter {
  void operator()(cudaMemPool_t p) const noexcept { cudaMemPoolDestroy(p); }
};
struct LibraryDeleter {
  void operator()(cudaLibrary_t l) const noexcept { cudaLibraryUnload(l); }
};
struct PinnedDeleter {
  void operator()(void* p) const noexcept { cudaFreeHost(p); }
};
struct CublasDeleter {
  void operator()(cublasContext* h) const noexcept;  // cublasDestroy (cuda_blas.cpp)
};

using UniqueStream = std::unique_ptr<std::remove_pointer_t<cudaStream_t>, StreamDeleter>;
using UniqueEvent = std::unique_ptr<std::remove_pointer_t<cudaEvent_t>, EventDeleter>;
using UniquePool = std::unique_ptr<std::remove_pointer_t<cudaMemPool_t>, PoolDeleter>;
using UniqueLibrary = std::unique_ptr<std::remove_pointer_t<cudaLibrary_t>, LibraryDeleter>;
using UniquePinned = std::unique_ptr<void, PinnedDeleter>;
using UniqueCublas = std::unique_ptr<cublasContext, CublasDeleter>;

// A new event; `timing` false makes a cheaper event for ordering and reuse checks only.
UniqueEvent make_event(bool timing);
// Pinned (page-locked) host memory for asynchronous copies.
UniquePinned make_pinned(size_t bytes);

// Makes `ordinal` the calling thread's current device for the guard's lifetime (runtime
// calls act on the current device), restoring the previous one after.
class DeviceGuard {
 public:
  explicit DeviceGuard(int ordinal);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

}  // namespace tgc::cuda
