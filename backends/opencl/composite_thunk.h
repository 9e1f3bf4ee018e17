// The OpenCL thunk of a Composite (a fused kernel): rendered to OpenCL C and built once, when
// the thunk is made; each call plans the launch for its shapes and enqueues it.
#pragma once

#include <memory>
#include <string>

#include "backends/opencl/opencl_device.h"
#include "compiler/kernel/composite_op.h"
#include "runtime/config.h"
#include "runtime/program.h"

namespace tgc::opencl {

// `label` names the node in build and launch errors.
ThunkFn make_composite_thunk(OpenCLDevice& device, std::shared_ptr<const Composite> op, const Config& config,
                             const std::string& label);

}  // namespace tgc::opencl
