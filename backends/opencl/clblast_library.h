// The GPU layer's BLAS calls (gpu/blas_library.h) through CLBlast, whose row-major API takes
// them as they are: each device address resolved to (buffer, element offset).
#pragma once

#include <memory>

#include "backends/gpu/blas_library.h"
#include "backends/opencl/opencl_device.h"

namespace tgc::opencl {

// A thunk's CLBlast calls on `device`'s queue.
std::unique_ptr<gpu::BlasLibrary> make_clblast_library(OpenCLDevice& device);

}  // namespace tgc::opencl
