// The device-op rule of the pooling ops (Pool2d, Pool2dGrad: tgc's own kernels), which every
// GPU API's rule list takes after its library rules (device_op_rules_with): where a library
// runs pooling (cuDNN), its rule comes first; where none does (OpenCL, CUDA without cuDNN),
// these kernels run it on the device.
#pragma once

#include <span>

#include "backends/gpu/device_op_rules.h"

namespace tgc::gpu {

std::span<const DeviceOpRule> pool_op_rules();

}  // namespace tgc::gpu
