// Public API: NumPy indexing of symbolic tensors, Theano's set_subtensor / inc_subtensor,
// and take. The Var::operator[] overloads are declared in tgc/var.h: integers, slices and
// newaxis index basically (the result is a view); an integer Var entry, of any rank
// including 0-d, makes NumPy's advanced indexing (the result is a copy).
#pragma once

#include <optional>

#include <tgc/var.h>
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

// A copy of x with x[index] replaced by `value` (broadcast to the indexed shape), where
// `indexed` is the expression x[index] itself, as in Theano: set_subtensor(x[{0}], v).
// With repeated array indices the last value wins.
Var set_subtensor(const Var& indexed, const Var& value);
Var set_subtensor(const Var& indexed, double value);  // value in the tensor's dtype
// A copy of x with `value` added to x[index]; repeated array indices accumulate (like
// np.add.at).
Var inc_subtensor(const Var& indexed, const Var& value);
Var inc_subtensor(const Var& indexed, double value);

// NumPy's take: the elements of x at integer `indices` along `axis`; without an axis, x is
// flattened first. Negative indices count from the end; out-of-range indices are an error.
Var take(const Var& x, const Var& indices, std::optional<int> axis = std::nullopt);

TGC_API_END
}  // namespace tgc
