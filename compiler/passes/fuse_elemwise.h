// The elementwise fusion pass: every elementwise computation, and every reduction with its
// elementwise prologue and epilogue, becomes one Composite node (one kernel).
#pragma once

#include "compiler/passes/pass_context.h"
#include "ops/core/graph.h"

namespace tgc {

// Replaces each group of find_fusion_groups (compiler/passes/fusion_groups.h) by one
// Composite node whose outputs are the group's values read outside it:
//   - chains and trees of elementwise nodes of one output space (rank and size-1 dims),
//     a smaller value (a vector in a matrix kernel) recomputed inside when nothing else
//     reads it;
//   - multi-output: siblings reading the same full-size input join, so x+y and x-y read x
//     and y once ("Composite{add(i0,i1), sub(i0,i1)}");
//   - reductions: sum(x*x) reads x once; an epilogue after the fold (sum(x,1)/n + b) and
//     sibling reductions over the same axes (sum(x), sum(x*x)) share the kernel; a value read
//     only by reductions (sum(dy * x) beside sum(dy)) is computed in their kernel, not written
//     by its producer's elementwise group.
// Lone elementwise nodes and lone reductions become Composites too, so that every
// elementwise and reduction computation runs as a kernel and backends have one path for it.
// Groups never exceed 32 inputs or 256 kernel values (larger groups are split) and never
// make a cycle. Returns whether the graph changed.
bool fuse_elemwise(Graph& graph, const PassContext& ctx);

}  // namespace tgc
