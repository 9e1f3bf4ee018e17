// The device-op rule of the random draws (RandomDraw: uniform, normal, integers), which the
// shared rule table of backends/gpu includes: one launch of backends/c_family/render_random's
// entry, reading the state and writing the advanced state on the device (no host wait, so a
// draw can be recorded in a CUDA graph). RandomPermutation's shuffle is sequential: one device
// thread runs it (no host round trip; serial, so O(n) on one thread).
#pragma once

#include <span>

#include "backends/gpu/device_op_rules.h"

namespace tgc::gpu {

std::span<const DeviceOpRule> random_op_rules();

}  // namespace tgc::gpu
