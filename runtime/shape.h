// Concrete shapes and strides (in elements, not bytes; negative and zero strides allowed).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

using Shape = std::vector<int64_t>;
using Strides = std::vector<int64_t>;

int64_t shape_numel(const Shape& shape);
Strides contiguous_strides(const Shape& shape);          // C order
Strides fortran_strides(const Shape& shape);             // Fortran order
std::string shape_str(const Shape& shape);               // "(400, 784)", "(3,)", "()"
// Normalizes a possibly negative axis against ndim: -ndim .. ndim-1 map to 0 .. ndim-1 and
// anything else (every axis of a 0-d tensor) is a ShapeError naming `what`. Reductions,
// which also take axis 0/-1 of a 0-d tensor as NumPy does, use normalize_reduce_axis.
int normalize_axis(int64_t axis, int ndim, const std::string& what);

TGC_API_END
}  // namespace tgc
