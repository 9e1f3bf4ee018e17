// The stable formulas that the stabilize rules put where a user wrote log of a sum or a
// difference of exponentials: log-add-exp and log1mexp, built from scalar-table ops so that
// fusion makes one kernel of them and grad() differentiates them like any other graph.
#pragma once

#include "compiler/passes/graph_editor.h"
#include "compiler/passes/stabilize_patterns.h"

namespace tgc::stabilize_patterns {

// log(exp(a) + exp(b)) for a and b of dtype t, finite wherever the result is:
//   where(a > b, a + softplus(b - a), where(a < b, b + softplus(a - b), a/2 + b/2 + log 2)).
// Every branch is the exact function where it is taken, so the gradient is exact too (the
// softmax weights exp(a)/(exp(a)+exp(b)), 1/2 each at a tie); the tie branch keeps
// a = b = +-inf at +-inf, where a - b is NaN; a NaN argument falls through to it and gives NaN.
VarPtr log_add_exp(const Builder& b, const VarPtr& x, const VarPtr& y, DType t);

// log(1 - exp(x)) for x <= 0 of dtype t (Maechler's log1mexp): log(-expm1(x)) where
// x > -log 2 (there 1 - exp(x) cancels), log1p(-exp(x)) below (there expm1 rounds to -1).
VarPtr log1mexp(const Builder& b, const VarPtr& x, DType t);

// Whether `log1p_out` (a log1p(-exp(x))) is the lower branch of a log1mexp(x) this file
// built: where(x > -log 2, ..., log1p_out) reads it. The log1mexp rule leaves it alone.
bool is_log1mexp_branch(const Variable* log1p_out, const Variable* x, const GraphEditor& graph);

}  // namespace tgc::stabilize_patterns
