// The device-op rule of the row ops (Softmax, LogSoftmax, LogSumExp, LogSoftmaxGrad: a block
// per row), which the shared rule table of backends/gpu includes.
#pragma once

#include <span>

#include "backends/gpu/device_op_rules.h"

namespace tgc::gpu {

std::span<const DeviceOpRule> row_op_rules();

}  // namespace tgc::gpu
