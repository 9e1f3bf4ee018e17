// The pinned staging ring: chunked, pipelined host<->device copies through page-locked memory.
#include "backends/cuda/pinned_staging.h"

#include <bit>

#include <algorithm>
#include <cstring>

#include "backends/cuda/cuda_error.h"

namespace tgc::cuda {

PinnedStaging::PinnedStaging(size_t chunk_bytes, int chunks, WaitFn wait)
    : chunk_bytes_(chunk_bytes), chunks_(static_cast<size_t>(chunks)), wait_(std::move(wait)) {}

PinnedStaging::Chunk& PinnedStaging::next_free(size_t need) {
  Chunk& c = chunks_[next_];
  next_ = (next_ + 1) % chunks_.size();
  if (c.pending) {
    wait_(c.done.get());  // usually long passed: the ring holds several chunks
    c.pending = false;
  }
  // Pinned on first use, and again larger when a copy needs more (a process that never copies
  // pins nothing; one that copies only scalars pins 64 KiB a chunk).
  if (!c.memory || c.bytes < need) {
    constexpr size_t kMinChunk = 64u << 10;
    const size_t bytes = std::min(chunk_bytes_, std::bit_ceil(std::max(need, kMinChunk)));
    c.memory.reset();
    c.memory = make_pinned(bytes);
    c.bytes = bytes;
    if (!c.done) c.done = make_event(/*timing=*/false);
  }
  return c;
}

void PinnedStaging::to_device(void* dst, const void* src, size_t bytes, cudaStream_t stream) {
  for (size_t off = 0; off < bytes; off += chunk_bytes_) {
    const size_t n = std::min(chunk_bytes_, bytes - off);
    Chunk& c = next_free(n);
    std::memcpy(c.memory.get(), static_cast<const char*>(src) + off, n);
    TGC_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(dst) + off, c.memory.get(), n, cudaMemcpyHostToDevice, stream));
    TGC_CUDA_CHECK(cudaEventRecord(c.done.get(), stream));
    c.pending = true;
  }
}

void PinnedStaging::to_host(void* dst, const void* src, size_t bytes, cudaStream_t stream) {
  // Pipelined: every chunk of the ring is in flight before the first is unpacked.
  struct InFlight {
    Chunk* chunk;
    size_t off, n;
  };
  std::vector<InFlight> flight;
  auto unpack = [&](const InFlight& f) {
    wait_(f.chunk->done.get());
    f.chunk->pending = false;
    std::memcpy(static_cast<char*>(dst) + f.off, f.chunk->memory.get(), f.n);
  };
  for (size_t off = 0; off < bytes; off += chunk_bytes_) {
    if (flight.size() == chunks_.size()) {
      unpack(flight.front());
      flight.erase(flight.begin());
    }
    const size_t n = std::min(chunk_bytes_, bytes - off);
    Chunk& c = next_free(n);
    TGC_CUDA_CHECK(cudaMemcpyAsync(c.memory.get(), static_cast<const char*>(src) + off, n, cudaMemcpyDeviceToHost, stream));
    TGC_CUDA_CHECK(cudaEventRecord(c.done.get(), stream));
    c.pending = true;
    flight.push_back({&c, off, n});
  }
  for (const InFlight& f : flight) unpack(f);
}

}  // namespace tgc::cuda
