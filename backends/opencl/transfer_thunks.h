// The OpenCL thunks of HostToDevice and DeviceToHost, and of the view ops that run on the
// device with their reference perform (DimShuffle, Reshape, Flatten).
#pragma once

#include "backends/opencl/opencl_device.h"
#include "ops/core/node.h"
#include "runtime/program.h"

namespace tgc::opencl {

// Host -> device; asynchronous for copies up to a few MiB (OpenCLDevice::copy_from_host).
ThunkFn make_host_to_device_thunk(OpenCLDevice& device);
// Device -> host with a blocking read: this is where the host needs the value.
ThunkFn make_device_to_host_thunk(OpenCLDevice& device);

// Whether `node` is a view op whose device thunk is its reference perform.
bool is_device_view_op(const Node& node);
// DimShuffle: its perform (a view). Reshape / Flatten: a view of the input, made dense on
// the device first when it is not contiguous (their perform would copy through the host).
ThunkFn make_view_thunk(OpenCLDevice& device, const Node& node);

}  // namespace tgc::opencl
