// Running an OpenCL-placed node's reference perform() on the host: inputs copied over, the
// results copied back into device outputs. For shapes a device kernel does not cover and to
// raise the reference's exact error when a kernel flags one; correct, never fast.
#pragma once

#include <vector>

#include "backends/opencl/opencl_device.h"
#include "ops/core/op.h"

namespace tgc::opencl {

void run_on_host(const Op& op, OpenCLDevice& device, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs);

}  // namespace tgc::opencl
