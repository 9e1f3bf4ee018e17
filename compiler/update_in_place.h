// Updates in place (Theano's behaviour): the node computing a shared variable's new value may
// write it into the variable's own buffer when nothing reads the old value after it, so an
// update of a few rows touches those rows only. Such nodes run last (schedule()), after every
// other node, and the executor validates all of them (Op::validate) before the first one
// writes, so that a call that fails leaves every variable as it was. The inplace pass decides
// (compiler/passes/inplace.h); the linker checks the decision on its schedule again and hands
// the variable's buffer over (Thunk::inplace from the variable's slot).
#pragma once

#include <unordered_set>
#include <vector>

#include "compiler/buffer_lifetimes.h"
#include "ops/core/graph.h"

namespace tgc {

// Per graph output, the shared variable it is the new value of (a function's updates), or
// null for a result. Shorter than the outputs (or empty): the rest are results.
using UpdateTargets = std::vector<const SharedValue*>;

// Whether a value of static type `in` surely fits the buffer of an output of type `out`: the
// same dtype and rank, no dim known on both sides with different sizes, and no input dim known
// to be 1 where the output's may be larger (a broadcast input is smaller).
bool fits_buffer(const Type& in, const Type& out);

// Whether some output of `n` is written into the buffer of a shared variable it reads
// (Op::inplace_input names a Shared input).
bool writes_variable(const Node& n);

// The graph's toposort (each ifelse condition before the work it guards: BranchGuards::order;
// collectives early: issue_collectives_early) with the nodes of `last` moved to the end, in
// toposort order. A node
// some other node reads from stays where it is (moving it would break the order).
std::vector<Node*> schedule_with_last(const Graph& graph, const std::unordered_set<const Node*>& last);

// The order the linker runs the nodes in: schedule_with_last(graph, every node that
// writes_variable()). The inplace pass decides on this order.
std::vector<Node*> schedule(const Graph& graph);

// Whether node `n`, at position `pos` of the schedule `life` was made from, may write output k
// into the buffer of input j, a shared variable: output k is that variable's update (and no
// other graph output, and read by no node), fits the buffer, and the old value is never read
// after n — no later node reads the variable or a view of it, neither is a graph output, and n
// reads it only as input j.
bool may_update_in_place(const Node& n, int pos, int k, int j, const BufferLifetimes& life, const Graph& graph,
                         const UpdateTargets& updates);

}  // namespace tgc
