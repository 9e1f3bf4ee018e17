// Shape helpers.
#include "runtime/shape.h"

#include <fmt/format.h>

#include "runtime/error.h"
#include "runtime/rank_limit.h"

namespace tgc {

void check_rank(int64_t ndim, const std::string& what) {
  if (ndim > kMaxRank)
    throw ShapeError(fmt::format("a tensor of {} dimensions is over the limit of {}", ndim, kMaxRank), what,
                     fmt::format("a tensor has at most {} dimensions (NumPy's limit); merge some with reshape",
                                 kMaxRank));
}

int64_t shape_numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Strides contiguous_strides(const Shape& shape) {
  Strides s(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    acc *= shape[i];
  }
  return s;
}

Strides fortran_strides(const Shape& shape) {
  Strides s(shape.size());
  int64_t acc = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    s[i] = acc;
    acc *= shape[i];
  }
  return s;
}

std::string shape_str(const Shape& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(shape[i]);
  }
  if (shape.size() == 1) out += ",";
  return out + ")";
}

int normalize_axis(int64_t axis, int ndim, const std::string& what) {
  if (axis < -ndim || axis >= ndim)
    throw ShapeError(what + ": axis " + std::to_string(axis) + " is out of bounds for a " +
                         std::to_string(ndim) + "-d tensor",
                     "", ndim == 0 ? std::string("a 0-d tensor has no axes")
                                   : "valid axes are " + std::to_string(-ndim) + " .. " +
                                         std::to_string(ndim - 1));
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

}  // namespace tgc
