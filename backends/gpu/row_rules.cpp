// The row ops' rule: which nodes it covers, why it declines some, and its thunk.
#include "backends/gpu/row_rules.h"

#include "backends/gpu/row_thunks.h"

namespace tgc::gpu {

namespace {

const DeviceOpRule kRules[] = {
    // softmax, log_softmax, logsumexp and log_softmax's gradient: one block per row (float
    // inputs of the result's dtype; decompose_for_fusion builds the others from reductions).
    {"row", is_row_op, row_op_declines,
     [](GpuDevice& d, const Node& n, const Config& c) { return make_row_thunk(d, n, c); }, true},
};

}  // namespace

std::span<const DeviceOpRule> row_op_rules() { return kRules; }

}  // namespace tgc::gpu
