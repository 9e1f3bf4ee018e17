// The device thunk of a CudaSourceOp (the user's CUDA source): NVRTC-compiled for the
// device once, when the thunk is made; each call allocates the outputs on the device, asks
// the op's launch rule for grid, block and arguments, and enqueues the launch.
#pragma once

#include "backends/cuda/cuda_device.h"
#include "ops/core/node.h"
#include "runtime/config.h"
#include "runtime/program.h"

namespace tgc::cuda {

// `node`'s op is a CudaSourceOp.
ThunkFn make_user_kernel_thunk(CudaDevice& device, const Node& node, const Config& config);

}  // namespace tgc::cuda
