// inplace: lets a node write its output into the buffer of an input that dies at it (Theano's
// inplace optimizations), so a chain of elementwise ops runs in one buffer.
#pragma once

#include "compiler/passes/pass_context.h"
#include "ops/core/graph.h"

namespace tgc {

// Replaces each node whose op can compute output k into input j (Op::make_inplace) by that
// inplace variant ("Elemwise{add,inplace}") when the schedule (the graph's toposort, which
// the linker follows) proves it safe: the input's buffer is the function's own (no graph
// input, constant or shared value, no graph output, nor a view of one), no node after this
// one reads it or a view of it, this node reads no other view of it, and it has the
// output's dtype and rank with no static dim that differs or broadcasts. Equal runtime
// shapes are checked when the op runs (a fresh buffer otherwise). Runs last among the graph
// passes: a rewrite after it could change the schedule. Returns whether anything changed.
bool inplace(Graph& graph, const PassContext& ctx);

}  // namespace tgc
