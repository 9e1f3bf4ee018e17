// NumPy broadcasting of static and concrete shapes, broadcast strides, loop collapsing.
#include "ops/elemwise/broadcast.h"

#include <fmt/format.h>

#include <algorithm>

#include "runtime/error.h"

namespace tgc {

namespace {

constexpr const char* kBroadcastHint =
    "shapes are compared from the last dimension backwards; each pair of dimensions must be "
    "equal or one of them 1 (add a broadcastable axis with dimshuffle or reshape)";

template <typename Fmt>
[[noreturn]] void throw_not_broadcastable(const std::vector<std::vector<int64_t>>& shapes,
                                          const std::string& what, Fmt&& format_shape) {
  std::string list;
  for (size_t i = 0; i < shapes.size(); ++i) list += (i ? " " : "") + format_shape(shapes[i]);
  throw ShapeError(fmt::format("{}operands could not be broadcast together with shapes {}",
                               what.empty() ? "" : what + ": ", list),
                   "", kBroadcastHint);
}

size_t max_rank(const std::vector<std::vector<int64_t>>& shapes) {
  size_t r = 0;
  for (const auto& s : shapes) r = std::max(r, s.size());
  return r;
}

}  // namespace

std::string static_shape_str(const std::vector<int64_t>& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += shape[i] == kUnknownDim ? "?" : std::to_string(shape[i]);
  }
  if (shape.size() == 1) out += ",";
  return out + ")";
}

std::vector<int64_t> broadcast_static_shapes(const std::vector<std::vector<int64_t>>& shapes,
                                             const std::string& what) {
  const size_t rank = max_rank(shapes);
  std::vector<int64_t> out(rank, 1);
  for (size_t d = 0; d < rank; ++d) {  // d counts from the left of the result
    bool unknown = false;
    int64_t known = 1;  // the known size other than 1, or 1
    for (const auto& s : shapes) {
      if (d + s.size() < rank) continue;  // a missing leading dim acts as 1
      int64_t dim = s[d + s.size() - rank];
      if (dim == kUnknownDim) {
        unknown = true;
      } else if (dim != 1) {
        if (known != 1 && known != dim) throw_not_broadcastable(shapes, what, static_shape_str);
        known = dim;
      }
    }
    out[d] = known != 1 ? known : (unknown ? kUnknownDim : 1);
  }
  return out;
}

Shape broadcast_shapes(const std::vector<Shape>& shapes, const std::string& what) {
  const size_t rank = max_rank(shapes);
  Shape out(rank, 1);
  for (size_t d = 0; d < rank; ++d) {
    int64_t size = 1;
    for (const Shape& s : shapes) {
      if (d + s.size() < rank) continue;
      int64_t dim = s[d + s.size() - rank];
      if (dim == 1) continue;
      if (size != 1 && size != dim) throw_not_broadcastable(shapes, what, shape_str);
      size = dim;
    }
    out[d] = size;
  }
  return out;
}

Strides broadcast_strides(const Shape& shape, const Strides& strides, const Shape& out_shape) {
  TGC_INTERNAL_CHECK(shape.size() == strides.size(), "shape and strides differ in rank");
  if (shape.size() > out_shape.size())
    throw ShapeError(fmt::format("cannot broadcast shape {} to the lower-rank shape {}",
                                 shape_str(shape), shape_str(out_shape)),
                     "", kBroadcastHint);
  const size_t lead = out_shape.size() - shape.size();
  Strides out(out_shape.size(), 0);
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t target = out_shape[lead + d];
    if (shape[d] == target) {
      out[lead + d] = target == 1 ? 0 : strides[d];
    } else if (shape[d] == 1) {
      out[lead + d] = 0;
    } else {
      throw ShapeError(fmt::format("cannot broadcast shape {} to shape {}", shape_str(shape),
                                   shape_str(out_shape)),
                       "", kBroadcastHint);
    }
  }
  return out;
}

void collapse_dims(Shape& shape, std::vector<Strides>& strides) {
  for (const Strides& s : strides)
    TGC_INTERNAL_CHECK(s.size() == shape.size(), "collapse_dims: stride list of wrong rank");
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) {
    shape = {0};
    for (Strides& s : strides) s = {0};
    return;
  }
  Shape new_shape;
  std::vector<Strides> new_strides(strides.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    bool merge = !new_shape.empty();
    for (size_t k = 0; merge && k < strides.size(); ++k)
      merge = new_strides[k].back() == strides[k][d] * shape[d];
    if (merge) {
      // The previous (outer) dim steps exactly over this whole dim: one longer dim.
      new_shape.back() *= shape[d];
      for (size_t k = 0; k < strides.size(); ++k) new_strides[k].back() = strides[k][d];
    } else {
      new_shape.push_back(shape[d]);
      for (size_t k = 0; k < strides.size(); ++k) new_strides[k].push_back(strides[k][d]);
    }
  }
  if (new_shape.empty() && !shape.empty()) {  // all dims were 1: one element
    new_shape = {1};
    for (Strides& s : new_strides) s = {0};
  }
  shape = std::move(new_shape);
  strides = std::move(new_strides);
}

}  // namespace tgc
