// The structure of a recorded eager graph as a cache key: two graphs with the same key
// compile to the same program (same ops in the sense of Op::equals, same wiring, same leaf
// dtypes, ranks and size-1 dims, same constants), so one compiled call serves both, bound to
// each graph's own leaves.
#pragma once

#include <string>
#include <vector>

#include "frontend/api/eager/eager_expr.h"

namespace tgc::eager_impl {

// TypeError when the graph reads a symbolic input that is not one of `leaves` (a Var of a
// graph mixed into an eager operation) or a shared variable.
std::string structure_key(const std::vector<Var>& outputs, const std::vector<Leaf>& leaves);

// The TypeError for a root of a recorded graph that is neither a leaf nor a constant: a
// symbolic input or a shared variable read by the function given to eager().
[[noreturn]] void reject_root(const Variable& v);

// The type a leaf of `value` gets: its dtype and rank, its size-1 dims static (so that
// broadcasting is decided the way NumPy decides it), the others unknown (one compiled call
// serves every size).
Type leaf_type(const Tensor& value);

}  // namespace tgc::eager_impl
