// Gemm, Gemv, Dot, BatchedDot and Outer on a GPU through its BLAS library (blas_library.h):
// which nodes BLAS runs and the thunk that prepares their operands, the same for every API.
#pragma once

#include <memory>
#include <string>

#include "backends/gpu/blas_library.h"
#include "backends/gpu/gpu_device.h"
#include "ops/core/node.h"
#include "runtime/program.h"

namespace tgc::gpu {

// Whether `node` is one of the ops above (a DeviceOpRule's covers).
bool blas_covers(const Node& node);
// "" when BLAS runs the covered `node`: float32 or float64 operands of one dtype; Gemm/Gemv
// also need constant alpha and beta (read once, when the thunk is made, so a call never
// waits to read them from the device). Else why not.
std::string blas_declines(const Node& node);

// The thunk of a node blas_declines() accepts, calling `library`.
ThunkFn make_blas_thunk(GpuDevice& device, const Node& node, std::unique_ptr<BlasLibrary> library);

}  // namespace tgc::gpu
