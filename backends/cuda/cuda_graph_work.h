// A call's device work recorded by CUDA stream capture and instantiated as a CUDA graph:
// replayed with one cudaGraphLaunch, owning the device blocks freed while it was recorded.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <utility>
#include <vector>

#include "runtime/device.h"

namespace tgc::cuda {

class CudaDevice;

// Takes `exec` and the blocks `kept` (pointer, bytes); both go back when the work is dropped
// (the blocks onto the device's free list, in stream order after any replay in flight).
// `waits`: the recording copies results to the host, so each replay waits for its work.
std::unique_ptr<CapturedWork> make_graph_work(CudaDevice& device, cudaGraphExec_t exec,
                                              std::vector<std::pair<void*, size_t>> kept, bool waits);

}  // namespace tgc::cuda
