// The device-op rules of the index and data-movement ops (views, gathers, scatters, arg
// reductions, joins, fills), which the shared rule table of backends/gpu includes.
#pragma once

#include <span>

#include "backends/gpu/device_op_rules.h"

namespace tgc::gpu {

std::span<const DeviceOpRule> index_op_rules();

}  // namespace tgc::gpu
