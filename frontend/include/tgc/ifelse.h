// Public API: lazy branches. ifelse(cond, a, b) is a when the scalar cond is nonzero, else b,
// and only the branch taken is computed (Theano's ifelse); where(c, a, b) stays the eager
// elementwise choice. See docs/control-flow.md.
#pragma once

#include <vector>

#include <tgc/var.h>
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

// cond: a scalar of any dtype (nonzero is true). a and b: the same dtype and rank; the result
// has the shape of the one taken (its static dims are those a and b agree on).
Var ifelse(const Var& cond, const Var& a, const Var& b);
// Several values chosen by one condition: then_vars[i] or else_vars[i], pairwise like above.
// Work shared by both branches runs once, whichever is taken.
std::vector<Var> ifelse(const Var& cond, const std::vector<Var>& then_vars, const std::vector<Var>& else_vars);

TGC_API_END
}  // namespace tgc
