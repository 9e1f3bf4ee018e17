// Conditional work in a CUDA recording (Device::begin_conditional, runtime/recorded_branches.h):
// a conditional graph node (an IF node, with an else body where asked) after everything recorded
// so far. A one-thread kernel recorded before it reads the condition tensors on each replay and
// sets the node's value (cudaGraphSetConditional); the node's bodies are recorded by capturing
// the device's own stream into them, so that every thunk records its work as it always does,
// cuBLAS's and cuDNN's included. The capture of the recording's graph ends while a body is
// captured and resumes after the node.
#pragma once

#include <cuda_runtime_api.h>

#include "runtime/device.h"

namespace tgc::cuda {

class CudaDevice;

// At most this many tests in one condition (the kernel takes them by value).
inline constexpr int kMaxConditionTests = 16;

class ConditionalCapture {
 public:
  // Whether a body is being recorded (begin() returned, end() not yet).
  bool open() const { return node_ != nullptr; }
  // The conditional node: what work recorded after it follows, and what work inside a body
  // counts as (for the recording's dependencies, which stop at the node).
  cudaGraphNode_t node() const { return node_; }

  // While `device` records: a node after all work recorded so far, and its first body
  // captured from here on. Throws a DeviceError (the call then runs node by node) where the
  // driver has no conditional nodes or the condition has more than kMaxConditionTests tests.
  void begin(CudaDevice& device, const Device::Condition& condition, bool with_else);
  // The else body captured from here on (begin's with_else).
  void otherwise(CudaDevice& device);
  // The body's capture ended; the recording's resumed after the node.
  void end(CudaDevice& device);
  // Where the recording's capture was ended for a body (open, or a failure between): ends the
  // stream's capture, dropping what it holds, and returns the recording's graph, the caller's
  // to destroy. nullptr where the recording's capture is the stream's.
  cudaGraph_t abandon(CudaDevice& device);

 private:
  cudaGraph_t graph_ = nullptr;       // the recording's graph while its capture is ended
  cudaGraphNode_t node_ = nullptr;    // the open node
  cudaGraph_t bodies_[2] = {nullptr, nullptr};
  bool with_else_ = false;
  bool in_else_ = false;
};

// Device::copy_chosen in one kernel that reads the condition itself: no conditional node.
void copy_chosen(CudaDevice& device, const Device::Condition& condition, void* dst, const void* when_true,
                 const void* when_false, size_t bytes);

}  // namespace tgc::cuda
