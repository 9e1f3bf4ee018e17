// constant_fold: nodes whose inputs are all constants are evaluated once, at compile time.
#pragma once

#include <cstdint>
#include <vector>

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

// The outputs of `n` when its inputs are all host constants and it can be folded (the rules
// above), else an empty vector. canonicalize's fold_constants rule folds with it what other
// rules leave with constant inputs only.
std::vector<Tensor> fold_node(const Node& n);

// The most elements any folded output may have: 2^16 (256 KiB of float32).
inline constexpr int64_t kConstantFoldLimit = int64_t{1} << 16;

}  // namespace tgc
