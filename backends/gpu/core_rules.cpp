// The core device-op rules, one a line.
#include "backends/gpu/core_rules.h"

#include "backends/gpu/composite_thunk.h"
#include "backends/gpu/shape_op_thunks.h"
#include "backends/gpu/transfer_thunks.h"
#include "compiler/kernel/composite_op.h"
#include "ops/control/ifelse.h"
#include "ops/transfer/transfer.h"

namespace tgc::gpu {

namespace {

bool is_composite(const Node& n) { return dynamic_cast<const Composite*>(&n.op()) != nullptr; }
bool is_host_to_device(const Node& n) { return dynamic_cast<const HostToDevice*>(&n.op()) != nullptr; }
bool is_device_to_host(const Node& n) { return dynamic_cast<const DeviceToHost*>(&n.op()) != nullptr; }
bool is_ifelse(const Node& n) { return dynamic_cast<const IfElse*>(&n.op()) != nullptr; }

ThunkFn composite(GpuDevice& d, const Node& n, const Config& c) {
  return make_composite_thunk(d, std::dynamic_pointer_cast<const Composite>(n.op_ptr()), c, n.describe());
}
ThunkFn host_to_device(GpuDevice& d, const Node&, const Config&) { return make_host_to_device_thunk(d); }
ThunkFn device_to_host(GpuDevice& d, const Node&, const Config&) { return make_device_to_host_thunk(d); }
ThunkFn view(GpuDevice& d, const Node& n, const Config&) { return make_view_thunk(d, n); }
// IfElse hands the taken branch's device tensors on; reading a device condition copies one
// value back (a wait: docs/control-flow.md).
ThunkFn ifelse(GpuDevice&, const Node& n, const Config&) {
  return [op = n.op_ptr()](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) { op->perform(inputs, outputs); };
}
ThunkFn shape_op(GpuDevice& d, const Node& n, const Config& c) { return make_shape_op_thunk(d, n, c); }

// self_contained: fused kernels (their scratch and state are their own), transfers and views
// touch only their operands. The shape ops hand out kept tensors or run on the host. The
// trailing `true`: the rule takes half tensors (kernels load and store them; the others move
// bytes).
const DeviceOpRule kRules[] = {
    {"Composite", is_composite, nullptr, composite, true, 0, true},
    {"HostToDevice", is_host_to_device, nullptr, host_to_device, true, 0, true},
    {"DeviceToHost", is_device_to_host, nullptr, device_to_host, true, 0, true},
    {"view", is_device_view_op, nullptr, view, true, 0, true},  // DimShuffle, Reshape, Flatten
    {"shape op", is_device_shape_op, nullptr, shape_op, false, 0, true},  // ReduceCount, SumToLike (a lowered sum)
    {"IfElse", is_ifelse, nullptr, ifelse, true, 0, true},  // no device work of its own
};

}  // namespace

std::span<const DeviceOpRule> core_device_op_rules() { return kRules; }

}  // namespace tgc::gpu
