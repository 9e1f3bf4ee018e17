// Strided copies on a CUDA device: a device view (transposed, sliced, broadcast) made dense
// by a small kernel of tgc's own, never by a round trip through the host.
#pragma once

#include "backends/cuda/cuda_device.h"
#include "runtime/tensor.h"

namespace tgc::cuda {

// dst[i...] = src[i...] for device tensors of one dtype and shape; `dst` C-contiguous,
// `src` any strides (0 included). Enqueued on the device's stream.
void copy_strided(CudaDevice& device, const Tensor& src, const Tensor& dst);

// `t` itself when C-contiguous, else a dense copy on the device.
Tensor contiguous_on_device(CudaDevice& device, const Tensor& t);

}  // namespace tgc::cuda
