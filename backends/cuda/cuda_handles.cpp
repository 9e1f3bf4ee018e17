// Creation helpers of the RAII CUDA owners and the current-device guard.
#include "backends/cuda/cuda_handles.h"

#include "backends/cuda/cuda_error.h"

namespace tgc::cuda {

UniqueEvent make_event(bool timing) {
  cudaEvent_t e = nullptr;
  TGC_CUDA_CHECK(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming));
  return UniqueEvent(e);
}

UniquePinned make_pinned(size_t bytes) {
  void* p = nullptr;
  TGC_CUDA_CHECK(cudaHostAlloc(&p, bytes == 0 ? 1 : bytes, cudaHostAllocDefault));
  return UniquePinned(p);
}

DeviceGuard::DeviceGuard(int ordinal) {
  TGC_CUDA_CHECK(cudaGetDevice(&previous_));
  if (previous_ == ordinal) {
    previous_ = -1;  // nothing to restore
    return;
  }
  TGC_CUDA_CHECK(cudaSetDevice(ordinal));
}

DeviceGuard::~DeviceGuard() {
  if (previous_ >= 0) cudaSetDevice(previous_);
}

}  // namespace tgc::cuda
