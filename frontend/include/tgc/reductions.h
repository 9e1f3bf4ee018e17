// Public API: reductions over any set of axes (none given = all axes), with keepdims, and
// NumPy's dtype rules: sum/prod of bool or integers give int64, floats keep their dtype;
// mean of integers or bool gives floatX; max/min keep the dtype; all/any give bool;
// argmax/argmin give int64 indices (first occurrence; NaN counts as the largest and the
// smallest, as in NumPy). Negative axes count from the end; a repeated axis is an error.
#pragma once

#include <optional>

#include <tgc/var.h>
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

Var sum(const Var& x, Axes axes = {}, bool keepdims = false);
Var prod(const Var& x, Axes axes = {}, bool keepdims = false);
// float32 and float64 sums and means accumulate in double: more accurate than NumPy's
// pairwise float32 sums, so the last bits of float32 results may differ from NumPy's.
Var mean(const Var& x, Axes axes = {}, bool keepdims = false);
// An empty reduction (a reduced axis of length 0) is a ValueError, as in NumPy.
Var max(const Var& x, Axes axes = {}, bool keepdims = false);
Var min(const Var& x, Axes axes = {}, bool keepdims = false);
// NumPy's all/any (nonzero is true).
Var all(const Var& x, Axes axes = {}, bool keepdims = false);
Var any(const Var& x, Axes axes = {}, bool keepdims = false);
// The index along `axis`, or into the flattened tensor when no axis is given.
Var argmax(const Var& x, std::optional<int> axis = std::nullopt, bool keepdims = false);
Var argmin(const Var& x, std::optional<int> axis = std::nullopt, bool keepdims = false);
// log(sum(exp(x))) computed stably (max subtracted); integer inputs give floatX. All -inf
// gives -inf (SciPy's logsumexp), an empty reduction -inf.
Var logsumexp(const Var& x, Axes axes = {}, bool keepdims = false);

TGC_API_END
}  // namespace tgc
