// The core family of shared device-op rules: Composite (fused kernels), the transfers, the
// device views and the shape-driven ops, which every GPU API runs with the thunks of this
// folder.
#pragma once

#include <span>

#include "backends/gpu/device_op_rules.h"

namespace tgc::gpu {

std::span<const DeviceOpRule> core_device_op_rules();

}  // namespace tgc::gpu
