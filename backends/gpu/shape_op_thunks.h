// Device thunks of the ops whose result depends on shapes more than on data: ReduceCount (a
// count read from a shape) and SumToLike (the identity when nothing was broadcast). Keeping
// them on the device spares the logistic regression's gradient four round trips to the host.
#pragma once

#include "backends/gpu/gpu_device.h"
#include "ops/core/node.h"
#include "runtime/program.h"

namespace tgc::gpu {

// Whether `node` is ReduceCount or SumToLike.
bool is_device_shape_op(const Node& node);

// ReduceCount: the count computed on the host from the input's shape (its elements are never
// read, so nothing waits for the device) and written to a device scalar, once per input
// shape. SumToLike: the input itself when the shapes agree (a view, no work), else the
// reference perform through the host (a real sum over broadcast dims: correct, not fast).
ThunkFn make_shape_op_thunk(GpuDevice& device, const Node& node);

}  // namespace tgc::gpu
