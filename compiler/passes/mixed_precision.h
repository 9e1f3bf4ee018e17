// mixed_precision: config mixed_precision=bfloat16|float16 (docs/precision.md). Every matrix
// product of float32 operands (Dot, BatchedDot) multiplies half copies of its operands —
// on tensor cores with float32 accumulation where the backend has them — and its result is
// read as float32 again. Parameters, elementwise work, reductions and updates stay float32:
// torch.autocast's policy for products, decided here once for every backend. The casts are
// elementwise nodes, so fusion folds them into the kernels that produce the operands and
// read the results.
#pragma once

#include "compiler/passes/pass_context.h"
#include "ops/core/graph.h"

namespace tgc {

// Returns whether the graph changed. Does nothing unless ctx.config.mixed_precision names a
// half type.
bool mixed_precision(Graph& graph, const PassContext& ctx);

}  // namespace tgc
