// The GPU layer's BLAS calls (gpu/blas_library.h) through cuBLAS: one handle per device
// (bound to its stream, workspace from its pool), the row-major calls as their column-major
// transposes (out^T = op(B)^T op(A)^T), TF32 only when config cuda_tf32 asks for it.
#pragma once

#include <memory>

#include "backends/cuda/cuda_device.h"
#include "backends/gpu/blas_library.h"
#include "runtime/config.h"

namespace tgc::cuda {

// A thunk's cuBLAS calls on `device` (the device's handle is created now, inside function(),
// rather than on the first call).
std::unique_ptr<gpu::BlasLibrary> make_cublas_library(CudaDevice& device, const Config& config);

}  // namespace tgc::cuda
