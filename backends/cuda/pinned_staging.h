// Pinned staging buffers for copies between pageable host memory and a device: a small ring
// of page-locked chunks, each reused only after the event recorded behind its last copy has
// passed, so copies pipeline without ever synchronising the whole device. A chunk is pinned on
// first use and only as large as the copies it has served (from 64 KiB): pinning 8 MB cost a
// function's first copy of two scalar constants 13 ms on an H100 (log_compiles showed it in
// the logistic regression's warm start).
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <vector>

#include "backends/cuda/cuda_handles.h"

namespace tgc::cuda {

class PinnedStaging {
 public:
  // Waits for an event, turning an asynchronous error into an exception (the device's job).
  using WaitFn = std::function<void(cudaEvent_t)>;

  PinnedStaging(size_t chunk_bytes, int chunks, WaitFn wait);

  // host -> device, ordered on `stream`; `src` may be reused as soon as this returns.
  void to_device(void* dst, const void* src, size_t bytes, cudaStream_t stream);
  // device -> host, ordered on `stream`; complete when this returns.
  void to_host(void* dst, const void* src, size_t bytes, cudaStream_t stream);

  size_t chunk_bytes() const { return chunk_bytes_; }

 private:
  struct Chunk {
    UniquePinned memory;
    size_t bytes = 0;      // what `memory` holds: grown as copies need, up to chunk_bytes_
    UniqueEvent done;      // recorded after the chunk's last copy
    bool pending = false;  // `done` recorded and not yet waited for
  };
  // The next chunk of the ring, once its last copy has passed, holding at least `need` bytes.
  Chunk& next_free(size_t need);

  size_t chunk_bytes_;
  std::vector<Chunk> chunks_;
  size_t next_ = 0;
  WaitFn wait_;
};

}  // namespace tgc::cuda
