// stabilize: rewrites that keep finite what the naive formula makes inf or NaN — the
// sigmoid, softplus, log1p, expm1, logsumexp and log_softmax forms of expressions users write
// by hand (Theano's stabilize phase). grad() also runs the table on a copy of the cost, so
// gradients are taken of the stable form.
#pragma once

#include <span>

#include "compiler/passes/local_rewrite.h"
#include "ops/core/graph.h"

namespace tgc {

// The rule table, one rule a line (docs/optimizations.md lists the same names). It needs no
// other pass: it matches the frontend's forms (x - y, -x, 1 / d) as well as the canonical
// ones (x + -y), so grad() can run it on a graph no canonicalizer has seen.
std::span<const LocalRewrite> stabilize_rules();

// Runs stabilize_rules() to a fixed point; returns whether the graph changed.
bool stabilize(Graph& graph, const PassContext& ctx);

}  // namespace tgc
