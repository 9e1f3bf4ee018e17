// Running a device-placed node's reference perform() on the host: inputs copied over, the
// results copied back into device outputs. For shapes a device kernel does not cover and to
// raise the reference's exact error when a kernel flags one; correct, never fast.
#pragma once

#include <vector>

#include "ops/core/op.h"
#include "runtime/device.h"
#include "runtime/tensor.h"

namespace tgc::gpu {

void run_on_host(const Op& op, Device& device, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs);

// `t` on the host (a copy when on a device; waits for it).
Tensor host_copy(const Tensor& t);

}  // namespace tgc::gpu
