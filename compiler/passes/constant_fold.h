// constant_fold: nodes whose inputs are all constants are evaluated once, at compile time.
#pragma once

#include <cstdint>

#include "compiler/passes/pass_context.h"
#include "ops/core/graph.h"

namespace tgc {

// Replaces every node whose inputs are all constants (shared variables are not: their value
// changes between calls) by constants holding its outputs, computed with the op's reference
// perform. Walks in topological order, so folding cascades to a fixed point in one walk:
// once a node is folded its readers may read constants only. Leaves a node alone when an
// output would have more than kConstantFoldLimit elements (zeros({4000, 4000}) stays a lazy
// allocation instead of a 64 MB constant in the program), or when perform raises a user
// error (the error then surfaces when the function runs, naming the node). Returns whether
// anything changed.
bool constant_fold(Graph& graph, const PassContext& ctx);

// The most elements any folded output may have: 2^16 (256 KiB of float32).
inline constexpr int64_t kConstantFoldLimit = int64_t{1} << 16;

}  // namespace tgc
