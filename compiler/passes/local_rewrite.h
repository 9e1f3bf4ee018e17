// LocalRewrite: one pattern rule of a rule table — a name, a one-line example that the docs
// and the trace show, and a function that looks at one node and either leaves it alone or
// returns what replaces its outputs. Rule tables (canonicalize, stabilize, specialize) are
// arrays of these, one rule a line, run to a fixed point by rewrite_to_fixed_point().
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "compiler/passes/graph_editor.h"
#include "compiler/passes/pass_context.h"
#include "compiler/passes/shape_equivalence.h"

namespace tgc {

// What a rule may look at besides its node: readers of variables (a rule that removes a
// shared subexpression must know it is not read elsewhere), the context (floatX, flags) and
// which dims are provably equal (one analysis per pass, computed as rules ask).
struct RewriteEnv {
  const GraphEditor& graph;
  const PassContext& ctx;
  ShapeEquivalence& shapes;
};

struct LocalRewrite {
  std::string_view name;     // "mul_by_one": what optimizer_excluding and the trace say
  std::string_view example;  // "x * 1 -> x": one line for docs/optimizations.md
  // One entry per output of `node` (null: keep that output), or empty when the rule does not
  // apply. A replacement must be interchangeable with the output it replaces (same dtype
  // and rank, see interchangeable()); build it with apply() from the node's inputs.
  std::vector<VarPtr> (*apply)(Node& node, const RewriteEnv& env);
};

// Applies `rules` (in table order, first match wins) to every node until none applies,
// visiting nodes made by a replacement, the readers of a replaced variable and their readers
// again (a rule may look through an operand to its producer).
// Records each replacement in ctx.trace under `pass`. Rules named in ctx.excluded are
// skipped. Returns whether anything changed. InternalError when the rules keep rewriting
// past a generous bound (two rules undoing each other), naming the last rules applied.
bool rewrite_to_fixed_point(Graph& graph, std::span<const LocalRewrite> rules, std::string_view pass,
                            const PassContext& ctx);

}  // namespace tgc
