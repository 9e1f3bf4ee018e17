// Gemm, Gemv, Dot, BatchedDot and Outer on a CUDA device through cuBLAS: one handle per
// device (bound to its stream, workspace from its pool), transposes passed as flags,
// float32/float64 only, TF32 only when config cuda_tf32 asks for it.
#pragma once

#include "backends/cuda/cuda_device.h"
#include "ops/core/node.h"
#include "runtime/config.h"
#include "runtime/program.h"

namespace tgc::cuda {

// Whether cuBLAS implements `node` here: one of the ops above with float32 or float64
// operands of one dtype; Gemm/Gemv also need constant alpha and beta (read once, when the
// thunk is made, so a call never waits to read them from the device).
bool blas_runs_on_device(const Node& node);

// The thunk for a node blas_runs_on_device() accepts.
ThunkFn make_blas_thunk(CudaDevice& device, const Node& node, const Config& config);

}  // namespace tgc::cuda
