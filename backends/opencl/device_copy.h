// Strided copies on an OpenCL device: a device view (transposed, sliced, broadcast) made
// dense by a small kernel of tgc's own, never by a round trip through the host.
#pragma once

#include "backends/opencl/opencl_device.h"
#include "runtime/tensor.h"

namespace tgc::opencl {

// dst[i...] = src[i...] for device tensors of one dtype and shape; `dst` C-contiguous,
// `src` any strides (0 included). Enqueued on the device's queue.
void copy_strided(OpenCLDevice& device, const Tensor& src, const Tensor& dst);

// `t` itself when C-contiguous, else a dense copy on the device.
Tensor contiguous_on_device(OpenCLDevice& device, const Tensor& t);

}  // namespace tgc::opencl
