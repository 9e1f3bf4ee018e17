// Collectives issued early, their readers late: in a data-parallel step each gradient's
// all_reduce can run beside the products that compute the next gradients (on a GPU, on a
// stream of its own: Config::comm_overlap) only if the schedule issues it before them and the
// update that reads its result after them. A plain toposort does neither: it walks the
// updates one by one, so each all_reduce sits between its gradient and its update.
#pragma once

#include <vector>

#include "ops/core/node.h"

namespace tgc {

// `order` (a schedule: every node after its producers) rearranged by Kahn's algorithm over the
// data edges, taking among the ready nodes first a collective, then other work by its
// distance to the nearest collective it feeds (a gradient's product before the next
// layer's), and a reader of a collective's result that feeds none last, in the order its
// collectives were issued (each waits for its own: GpuDevice::join_side_work); ties keep
// `order`'s order. Unchanged where `order` has no collective, or has an IfElse
// (its schedule orders conditions before guarded work: compiler/branch_guards.h).
std::vector<Node*> issue_collectives_early(const std::vector<Node*>& order);

}  // namespace tgc
