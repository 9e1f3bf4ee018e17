// merge: common-subexpression elimination (Theano's MergeOptimizer).
#pragma once

#include "compiler/passes/pass_context.h"
#include "ops/core/graph.h"

namespace tgc {

// Makes equal computations one: two nodes with equal ops (Op::equals) reading the same
// variables become the first of them, and equal small constants (same dtype, shape and
// bytes, at most kMergeConstantLimit elements) become one constant. One walk in topological
// order, nodes hashed by their op's hash and their inputs' identities, so merging is linear
// in the graph's size and cascades (once two inputs merged, their readers compare equal).
// Returns whether anything changed.
bool merge(Graph& graph, const PassContext& ctx);

// Whether a and b compute the same thing: equal ops (Op::equals) reading the same variables.
// merge makes such nodes one; fusion recognises the copies rematerialize makes by it.
bool same_computation(const Node& a, const Node& b);
// A hash equal for nodes of the same computation: the op's hash and the inputs' identities.
size_t computation_hash(const Node& n);

// Constants with more elements are left alone: comparing their bytes costs more than a
// duplicate saves, and large constants are rarely built twice.
inline constexpr int64_t kMergeConstantLimit = 1024;

}  // namespace tgc
