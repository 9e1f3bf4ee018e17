// The pooling ops' rule: which nodes it covers, why it declines some, and its thunk.
#include "backends/gpu/pool_rules.h"

#include "backends/gpu/pool_thunks.h"

namespace tgc::gpu {

namespace {

const DeviceOpRule kRules[] = {
    // max_pool2d, avg_pool2d and their gradients: a thread per element of the result (float32
    // and float64; half tensors stay on the host until the kernels compute in half storage).
    {"pool", is_pool_op, pool_op_declines,
     [](GpuDevice& d, const Node& n, const Config& c) { return make_pool_thunk(d, n, c); }, true},
};

}  // namespace

std::span<const DeviceOpRule> pool_op_rules() { return kRules; }

}  // namespace tgc::gpu
