// The device thunk of a Composite (a fused kernel): rendered to CUDA C and compiled by NVRTC
// once, when the thunk is made; each call plans the launch for its shapes and enqueues it.
#pragma once

#include <memory>
#include <string>

#include "backends/cuda/cuda_device.h"
#include "compiler/kernel/composite_op.h"
#include "runtime/config.h"
#include "runtime/program.h"

namespace tgc::cuda {

// `label` names the node in compile and launch errors.
ThunkFn make_composite_thunk(CudaDevice& device, std::shared_ptr<const Composite> op, const Config& config,
                             const std::string& label);

}  // namespace tgc::cuda
