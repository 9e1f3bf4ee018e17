// sparse_update: an update that adds a scattered gradient to a tensor touches only the rows it
// scatters to (Theano's local_IncSubtensor_serialize, for the gradients of indexing):
// x - c * inc_subtensor(zeros_like(x)[i], v) -> inc_subtensor(x[i], -c * v).
#pragma once

#include <span>

#include "compiler/passes/local_rewrite.h"

namespace tgc {

// The rules, one a line (docs/optimizations.md lists them). Each fires for an
// IncSubtensor{Inc} (basic or advanced index) whose base is provably all zeros and provably of
// x's shape, in x's dtype; a scale must be 0-d. Repeated indices then add each value into x in
// turn (x + (-c*v1) + (-c*v2)) where the original summed them first (x - c*(v1 + v2)): the
// same up to rounding.
std::span<const LocalRewrite> sparse_update_rules();

// Runs the rules to a fixed point. Returns whether anything changed.
bool sparse_update(Graph& graph, const PassContext& ctx);

}  // namespace tgc
