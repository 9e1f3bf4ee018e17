// A call's device work recorded by CUDA stream capture and instantiated as a CUDA graph:
// replayed with one cudaGraphLaunch, owning the device blocks freed while it was recorded.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "backends/cuda/cuda_handles.h"
#include "runtime/device.h"

namespace tgc::cuda {

class CudaDevice;

// Takes `exec` and the blocks `kept` (pointer, bytes); both go back when the work is dropped
// (the blocks onto the device's free list, in stream order after any replay in flight).
// `waits`: the recording copies results to the host, so each replay waits for its work.
// `checks` (deferred error checks, gpu::GpuDevice::defer_flag_check) with `flag_copy`, the
// pinned int the recording copies the device's error word into: each replay waits, and when
// the word was set calls the checks in order (each runs a host reference that raises).
std::unique_ptr<CapturedWork> make_graph_work(CudaDevice& device, cudaGraphExec_t exec,
                                              std::vector<std::pair<void*, size_t>> kept, bool waits,
                                              std::vector<std::function<void()>> checks = {},
                                              UniquePinned flag_copy = nullptr);

}  // namespace tgc::cuda
