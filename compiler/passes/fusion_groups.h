// Fusion's decision, apart from the graph surgery: which nodes of a graph form one kernel.
// fuse_elemwise replaces each group found here by a Composite node; tests inspect the groups.
#pragma once

#include <vector>

#include "compiler/kernel/lower.h"
#include "compiler/passes/pass_context.h"
#include "ops/core/graph.h"

namespace tgc {

// How large one kernel may grow. A group that would pass a limit is split (the node that
// would cross it starts another group); fusion never fails because of a limit.
struct FusionLimits {
  int max_inputs = 32;    // distinct tensors read (0-d constants are folded, not counted)
  int max_values = 256;   // scalar values of the kernel, counted conservatively (see .cpp)
};

// The maximal fusable groups of `graph`: elementwise nodes with the same output space (rank
// and size-1 dims), siblings reading the same full-size input, and reductions with their
// elementwise prologue and epilogue (all reductions of a group fold the same axes with the
// same keepdims; a prologue value is never read outside its group). Every group is convex
// (no path between two members leaves the group), and the groups come in an order in which
// each group's inputs are produced before it: replacing them one by one in this order is
// always valid. Every Elementwise and Reduction node of the graph is in exactly one group,
// a lone one included. Each group's nodes, inputs and outputs are as the graph is now.
// Runs in time about linear in the graph's size.
// `facts` (the shared variables' shapes when known, may be null): reductions whose inputs
// are then known to differ in shape are not grouped.
std::vector<FusedGroup> find_fusion_groups(const Graph& graph, const FusionLimits& limits,
                                          const SharedShapeFacts* facts = nullptr);

}  // namespace tgc
