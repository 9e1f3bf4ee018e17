// Public API: joining and splitting tensors — concatenate, stack, split.
#pragma once

#include <cstdint>
#include <vector>

#include <tgc/var.h>
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

// Joins tensors along an existing axis (NumPy's concatenate); dtypes are promoted.
Var concatenate(const std::vector<Var>& xs, int axis = 0);
// Joins tensors of one shape along a new axis (NumPy's stack); dtypes are promoted.
Var stack(const std::vector<Var>& xs, int axis = 0);
// Cuts x along `axis` into consecutive pieces of the given sizes, which must add up to the
// axis' size (checked when the function runs if the size is not known statically).
std::vector<Var> split(const Var& x, const std::vector<int64_t>& sizes, int axis = 0);

TGC_API_END
}  // namespace tgc
