// The device-op rule of the collectives (ops/collective/), which a GPU API with a collective
// engine lists among its rules (CUDA: NCCL, registered with runtime/comm/world.h's
// register_comm_factory when it loads): each collective runs on the device's stream, so it
// stays inside a recorded call; a group of one rank needs no engine (a copy). Without an
// engine (NCCL missing, or OpenCL) the node stays on the host, where MPI moves host memory.
#pragma once

#include "backends/gpu/device_op_rules.h"

namespace tgc::gpu {

// The serial domain (Thunk::serial_domain) of the collectives: apart from cuBLAS's.
inline constexpr int kCollectiveDomain = 1;

const DeviceOpRule& collective_op_rule();

}  // namespace tgc::gpu
