// canonicalize: the algebraic and shape simplifications every graph gets (x*1 -> x,
// exp(log x) -> x, a reshape to the shape it has -> x, ...), as one rule table.
#pragma once

#include <span>

#include "compiler/passes/local_rewrite.h"
#include "compiler/passes/pass_context.h"
#include "ops/core/graph.h"

namespace tgc {

// Runs canonicalize_rules() to a fixed point (rewrite_to_fixed_point). Each rule keeps the
// results except where its comment in the table says otherwise (x - x -> 0 assumes a
// finite x; exp(log x) -> x assumes x >= 0). Returns whether anything changed.
bool canonicalize(Graph& graph, const PassContext& ctx);

// The rule table, one rule a line with its example (docs/optimizations.md lists the same).
std::span<const LocalRewrite> canonicalize_rules();

}  // namespace tgc
