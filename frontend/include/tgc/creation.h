// Public API: tensors created from a value — alloc, zeros, ones, *_like, fill — and
// ranges: arange, eye.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <tgc/var.h>
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

// A tensor of static `shape` holding `value` (a scalar, or any tensor that broadcasts).
Var alloc(const Var& value, const std::vector<int64_t>& shape);
Var zeros(const std::vector<int64_t>& shape, std::optional<DType> dtype = std::nullopt);  // dtype: floatX
Var ones(const std::vector<int64_t>& shape, std::optional<DType> dtype = std::nullopt);
// Shaped (and typed) like x, which may have unknown dims; x's values are not used.
Var zeros_like(const Var& x);
Var ones_like(const Var& x);
// Theano's fill(like, value): like's shape (broadcast with value's), value's dtype.
Var fill(const Var& like, const Var& value);
// NumPy's arange: ceil((stop - start) / step) values from start. Without a dtype: int64
// when start, stop and step are all whole numbers, else floatX.
Var arange(double start, double stop, double step = 1, std::optional<DType> dtype = std::nullopt);
Var arange(double stop);  // 0 .. stop-1
// 0 .. n-1 for n = shape_of(x)[i], a dim known only when the function runs (Theano's
// arange(y.shape[0]): a batch's row indices); int64. Any other symbolic stop is a TypeError.
Var arange(const Var& stop);
// NumPy's eye: n x m (m = n by default) with ones on the k-th diagonal.
Var eye(int64_t n, std::optional<int64_t> m = std::nullopt, int64_t k = 0,
        std::optional<DType> dtype = std::nullopt);

TGC_API_END
}  // namespace tgc
