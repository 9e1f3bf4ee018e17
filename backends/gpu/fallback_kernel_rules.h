// The device-op rules of tgc's own kernels for ops a library runs better where it is there:
// pooling and convolution (cuDNN on CUDA). Every GPU API's rule list takes them after its
// library rules (device_op_rules_with), so the library's rule comes first; where no library
// runs a node (OpenCL, CUDA without cuDNN, a form cuDNN declines), these run it on the device.
#pragma once

#include <span>
#include <string>

#include "backends/gpu/device_op_rules.h"

namespace tgc::gpu {

std::span<const DeviceOpRule> fallback_kernel_rules();

// Why tgc's kernels cannot run a pooling or convolution node ("" when they can): operands of
// mixed dtypes (a pooling gradient's output gradient may differ from x; the conv ops' type
// rules refuse mixed operands, so for them this only guards the kernels' one-type ABI).
std::string fallback_kernel_declines(const Node& node);

}  // namespace tgc::gpu
