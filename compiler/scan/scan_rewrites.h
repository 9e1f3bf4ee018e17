// The optimizer's passes over loops (docs/optimizations.md#loops):
//   scan_refine_types: the step's placeholders take the dims the loop's inputs are known to
//     have (static types, shape facts of shared variables): the step's own rewrites then see
//     static shapes (a gradient's sum_to_like of a product becomes the identity, and the
//     product, computed only for its shape, goes).
//   scan_prune: a loop computes only the results something reads — a gradient loop whose
//     sequence gradient nobody asked for (an input's gradient when only the weights' are
//     wanted) drops it and the products that made it; a result another kept result reads
//     through its taps stays.
//   scan_save_memory: a state whose history is read only at its last rows (h[-1], the value
//     after the loop, an update's) keeps a window of those rows instead of every step's.
//   scan_pushout_sums: a state that only sums dot(a[t].T, b[t]) over the steps (a weight's
//     gradient in a gradient loop) becomes per-step outputs a and b and one product of the
//     stacked matrices after the loop: one large product instead of n small ones.
//   scan_pushout_products: dot(x[t], W) of a sequence's rows by a non-sequence becomes one
//     product of the whole sequence before the loop (static row and W dims), read by row.
//   scan_vectorize: a loop whose steps do not depend on each other (no state, no until) and
//     whose step is elementwise becomes that elementwise computation on the whole sequences.
// Run after grad() built the gradient loops: the histories a gradient reads are clients.
#pragma once

#include "compiler/passes/pass_context.h"
#include "ops/core/graph.h"

namespace tgc {

bool scan_refine_types(Graph& graph, const PassContext& ctx);
bool scan_prune(Graph& graph, const PassContext& ctx);
bool scan_pushout_products(Graph& graph, const PassContext& ctx);
bool scan_save_memory(Graph& graph, const PassContext& ctx);
bool scan_vectorize(Graph& graph, const PassContext& ctx);
bool scan_pushout_sums(Graph& graph, const PassContext& ctx);

}  // namespace tgc
