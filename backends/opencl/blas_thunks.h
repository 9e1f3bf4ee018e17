// Gemm, Gemv, Dot, BatchedDot and Outer on an OpenCL device through CLBlast (row-major,
// buffers with element offsets, transposes passed as flags, float32/float64 only). Built only
// with CLBlast (TGC_HAVE_CLBLAST); without it these nodes stay on the host.
#pragma once

#include "backends/opencl/opencl_device.h"
#include "ops/core/node.h"
#include "runtime/config.h"
#include "runtime/program.h"

namespace tgc::opencl {

// Whether CLBlast implements `node` here: one of the ops above with float32 or float64
// operands of one dtype; Gemm/Gemv also need constant alpha and beta (read once, when the
// thunk is made).
bool blas_runs_on_device(const Node& node);

// The thunk for a node blas_runs_on_device() accepts.
ThunkFn make_blas_thunk(OpenCLDevice& device, const Node& node, const Config& config);

}  // namespace tgc::opencl
