// half_products: a matrix product of half operands (Dot, BatchedDot) that the function's
// device cannot run in the half type (OpenCL: CLBlast has no bfloat16, and NVIDIA's OpenCL
// no cl_khr_fp16) multiplies float32 copies there instead and rounds the result once to the
// half type, as the CPU's products do (docs/precision.md). So the product stays on the
// device, its casts fused into the kernels around it, rather than going to the host.
#pragma once

#include "compiler/passes/pass_context.h"
#include "ops/core/graph.h"

namespace tgc {

// Returns whether the graph changed. Does nothing on the host, or where the device runs
// every half product it is asked about.
bool half_products(Graph& graph, const PassContext& ctx);

}  // namespace tgc
