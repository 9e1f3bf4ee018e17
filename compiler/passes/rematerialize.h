// The rematerialize pass: a cheap elementwise value that several kernels read is computed
// again inside each of them instead of written to memory once and read back by each. A batch
// norm's centred activations sub(x, mean) are read by the variance's reduction, by the
// normalisation and by the backward pass: materialized, each costs a full write and a full
// read (and their square and doubled copies more); recomputed, each reader reads x, which
// it reads or could read as cheaply. Runs just before fusion, after the last merge.
#pragma once

#include "compiler/passes/pass_context.h"
#include "ops/core/graph.h"

namespace tgc {

// Most readers a value is recomputed for (one copy each); a value with more stays written.
inline constexpr size_t kMaxRematerializedReaders = 4;

// Gives each reader of such a value a copy of its node. A value qualifies when:
//   - its node is one elementwise operation of the cheap kinds (add, sub, mul, neg, square,
//     maximum, minimum, comparisons, casts);
//   - it reads at most one tensor of its own size, of no wider dtype than its own (the rest
//     broadcast: a per-channel vector, a constant);
//   - it is no output of the graph;
//   - it has 2 to kMaxRematerializedReaders readers, each an elementwise node of its size or a
//     reduction of it (can_compute; a library call or a view needs it in memory, and then
//     recomputing saves nothing).
// A copy that fusion still leaves alone is merged back (merge_fused). Repeated until no value
// qualifies, so chains (the square of the centred value) follow. Returns whether the graph
// changed.
bool rematerialize(Graph& graph, const PassContext& ctx);

// Whether `reader`'s kernel can compute `v` in place of reading it: an elementwise node of v's
// own size, or a reduction of v (v its prologue). Fusion puts a copy into its reader's
// kernel on the same condition (fusion_groups.cpp).
bool can_compute(const Node& reader, const Variable& v);

}  // namespace tgc
