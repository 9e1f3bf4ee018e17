// Copies by tgc's own kernels on a GPU (c_family/render_copy.h): a device view (transposed,
// sliced, broadcast) made dense, never by a round trip through the host; and small dense
// copies, which a kernel finishes sooner than a copy engine starts them (where the device's
// kernel_copy_max_bytes() says so).
#pragma once

#include "backends/gpu/gpu_device.h"
#include "runtime/tensor.h"

namespace tgc::gpu {

// `bytes` dense bytes from `src` to `dst` by a kernel on the device's stream: each either
// device memory or host memory the device can address (CUDA's pinned memory). The ranges
// must not overlap.
void copy_bytes(GpuDevice& device, void* dst, const void* src, size_t bytes);
// copy_bytes, unless the device int at `flag` is nonzero when the kernel runs (a recorded
// call's update, skipped when a kernel of the call flagged an error: GpuDevice::defer_flag_check).
void copy_bytes_unless(GpuDevice& device, void* dst, const void* src, size_t bytes, const void* flag);

// Compiles (or loads from the kernel cache) the copy kernels for `device` now, so that a
// recording never waits on a compiler or loads a module while it captures.
void load_copy_kernels(GpuDevice& device);

// dst[i...] = src[i...] for device tensors of one dtype and shape; `dst` C-contiguous,
// `src` any strides (0 included). Enqueued on the device's stream.
void copy_strided(GpuDevice& device, const Tensor& src, const Tensor& dst);

// `t` itself when C-contiguous, else a dense copy on the device.
Tensor contiguous_on_device(GpuDevice& device, const Tensor& t);

}  // namespace tgc::gpu
