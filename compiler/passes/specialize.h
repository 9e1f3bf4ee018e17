// specialize: replaces general ops by the library calls that do the same work in one go —
// dot(x, y) * a + c * b -> Gemm/Gemv (BLAS's fused multiply-add, transposes as flags),
// sum(x * y) over vectors -> dot(x, y), fill(like, v) -> where(true, v, like) (an elementwise
// op fusion can take in) — as one rule table.
#pragma once

#include <span>

#include "compiler/passes/local_rewrite.h"
#include "compiler/passes/pass_context.h"
#include "ops/core/graph.h"

namespace tgc {

// Runs specialize_rules() to a fixed point (rewrite_to_fixed_point). The rules fire for
// float32 and float64 products only (BLAS has no integer routines), and fold a dot into a
// Gemm only when nothing else reads the dot (otherwise the product would be computed
// twice). Results agree with the unspecialised graph up to rounding (BLAS computes
// alpha*A@B + beta*C in the operand type, the elementwise ops round after each step).
// Returns whether anything changed.
bool specialize(Graph& graph, const PassContext& ctx);

// The rule table, one rule a line with its example (docs/optimizations.md lists the same).
std::span<const LocalRewrite> specialize_rules();

}  // namespace tgc
