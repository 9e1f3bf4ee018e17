// Copies by tgc's own kernels on a CUDA device: a device view (transposed, sliced, broadcast)
// made dense, never by a round trip through the host; and small dense copies, which a kernel
// finishes sooner than a copy engine starts them.
#pragma once

#include "backends/cuda/cuda_device.h"
#include "runtime/tensor.h"

namespace tgc::cuda {

// Copies of at most this many bytes go through copy_bytes (CudaDevice::copy_on_device, and
// copy_to_host into pinned memory). Measured on an H100 (docs/gpu.md): a copy engine takes
// microseconds to start each transfer, so the logistic-regression step's two small results
// and two updates cost more as copies than its kernels; a one-block kernel is done at once.
// Above this, the copy engines' bandwidth wins.
constexpr size_t kKernelCopyMaxBytes = 64 * 1024;

// `bytes` dense bytes from `src` to `dst` by a kernel on the device's stream: each either
// device memory or pinned host memory (unified addressing maps pinned memory into every
// device's address space). The ranges must not overlap.
void copy_bytes(CudaDevice& device, void* dst, const void* src, size_t bytes);

// Compiles (or loads from the kernel cache) the copy kernels for `device` now, so that a
// recording never waits on NVRTC or loads a module while it captures.
void load_copy_kernels(CudaDevice& device);

// dst[i...] = src[i...] for device tensors of one dtype and shape; `dst` C-contiguous,
// `src` any strides (0 included). Enqueued on the device's stream.
void copy_strided(CudaDevice& device, const Tensor& src, const Tensor& dst);

// `t` itself when C-contiguous, else a dense copy on the device.
Tensor contiguous_on_device(CudaDevice& device, const Tensor& t);

}  // namespace tgc::cuda
