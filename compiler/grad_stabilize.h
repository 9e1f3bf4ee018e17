// The cost grad() differentiates when GradOptions::stabilize is on: the user's cost with the
// stabilize rules applied to a private copy, read back onto the user's own variables.
#pragma once

#include "ops/core/variable.h"

namespace tgc {

// An expression of the same inputs, shared variables and constants as `cost` with the
// stabilize rule table (compiler/passes/stabilize.h) run to a fixed point: the naive
// 1/(1+exp(-z)), log(1 - p) ... become sigmoid, softplus, log1p forms whose gradients stay
// finite. `cost` itself when no rule applies, when the global config's optimizer is "none",
// or when its optimizer_excluding names "stabilize" (single rules named there are left out).
VarPtr stabilized_cost(const VarPtr& cost);

}  // namespace tgc
