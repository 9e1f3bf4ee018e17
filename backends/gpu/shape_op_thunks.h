// Device thunks of the ops whose result depends on shapes more than on data: ReduceCount (a
// count read from a shape) and SumToLike (a sum over the axes the runtime shapes say). Keeping
// them on the device spares every gradient of a broadcast its round trips to the host.
#pragma once

#include "backends/gpu/gpu_device.h"
#include "ops/core/node.h"
#include "runtime/config.h"
#include "runtime/program.h"

namespace tgc::gpu {

// Whether `node` is ReduceCount or SumToLike.
bool is_device_shape_op(const Node& node);

// ReduceCount: the count computed on the host from the input's shape (its elements are never
// read, so nothing waits for the device) and written to a device scalar, once per input
// shape. SumToLike: the input itself when the shapes agree (a view, no work), else a sum
// kernel over the folded axes (one per distinct set of axes, compiled on first use), viewed
// at like's shape; integer inputs (their sums widen) go through the host.
ThunkFn make_shape_op_thunk(GpuDevice& device, const Node& node, const Config& config);

}  // namespace tgc::gpu
