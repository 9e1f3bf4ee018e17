// The device thunk of a Composite (a fused kernel) on any GPU: rendered to the device's
// dialect and loaded once, when the thunk is made; each call plans the launch for its shapes
// (the CallPlanner keeps the last plan) and enqueues it.
#pragma once

#include <memory>
#include <string>

#include "backends/gpu/gpu_device.h"
#include "compiler/kernel/composite_op.h"
#include "runtime/config.h"
#include "runtime/program.h"

namespace tgc::gpu {

// `label` names the node in compile and launch errors.
ThunkFn make_composite_thunk(GpuDevice& device, std::shared_ptr<const Composite> op, const Config& config,
                             const std::string& label);

}  // namespace tgc::gpu
