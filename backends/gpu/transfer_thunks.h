// The device thunks of HostToDevice and DeviceToHost, and of the view ops that run on the
// device with their reference perform (DimShuffle, Reshape, Flatten).
#pragma once

#include "backends/gpu/gpu_device.h"
#include "ops/core/node.h"
#include "runtime/program.h"

namespace tgc::gpu {

// Host -> device; asynchronous where the API allows (the host does not wait).
ThunkFn make_host_to_device_thunk(GpuDevice& device);
// Device -> host into the device's host_result_memory(); waits (wait_for_host_results),
// since this is where the host needs the value.
ThunkFn make_device_to_host_thunk(GpuDevice& device);

// Whether `node` is a view op whose device thunk is its reference perform.
bool is_device_view_op(const Node& node);
// DimShuffle: its perform (a view). Reshape / Flatten: a view of the input, made dense on
// the device first when it is not contiguous (their perform would copy through the host).
ThunkFn make_view_thunk(GpuDevice& device, const Node& node);

}  // namespace tgc::gpu
