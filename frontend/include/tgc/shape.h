// Public API: shape manipulation — reshape, flatten, dimshuffle, transpose, squeeze and
// expand_dims (all views of their input where the layout allows) — and shape_of (x.shape).
#pragma once

#include <cstdint>
#include <vector>

#include <tgc/var.h>
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

// NumPy's reshape; one entry may be -1 (inferred from the size).
Var reshape(const Var& x, const std::vector<int64_t>& shape);
// Theano's flatten: keeps the first ndim-1 axes and merges the rest (ndim=1: a vector).
Var flatten(const Var& x, int ndim = 1);
// Theano's dimshuffle: pattern entries are input axes, or -1 for a new broadcastable axis
// ('x'); input axes left out are dropped and must have size 1.
Var dimshuffle(const Var& x, const std::vector<int>& pattern);
// Permutes the axes (negative axes count from the end); no permutation reverses them.
Var transpose(const Var& x, const std::vector<int>& perm = {});
// Removes the given axes, which must have size 1; with none given, every axis whose size
// is statically known to be 1 (the broadcastable axes, as in Theano).
Var squeeze(const Var& x, Axes axes = {});
// Inserts a size-1 axis at `axis` (in -(ndim+1) .. ndim, like NumPy).
Var expand_dims(const Var& x, int axis);
// Theano's x.shape: x's shape as a symbolic int64 vector (shape_of(x)[0] is the first dim),
// computed from x's metadata alone (on a GPU, x is not copied for it) and a constant when
// the compiler knows the shape. Sizes that ops take as arguments (reshape, zeros, arange)
// are numbers, not these.
Var shape_of(const Var& x);

TGC_API_END
}  // namespace tgc
