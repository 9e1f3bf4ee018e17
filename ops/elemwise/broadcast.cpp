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

[[noreturn]] void throw_not_broadcastable(const std::vector<std::vector<int64_t>>& shapes,
                                          const std::string& what) {
  std::string list;
  for (size_t i = 0; i < shapes.size(); ++i) list += (i ? " " : "") + static_shape_str(shapes[i]);
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

std::optional<std::vector<int64_t>> try_broadcast_static_shapes(const std::vector<std::vector<int64_t>>& shapes) {
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
        if (known != 1 && known != dim) return std::nullopt;
        known = dim;
      }
    }
    out[d] = known != 1 ? known : (unknown ? kUnknownDim : 1);
  }
  return out;
}

std::vector<int64_t> broadcast_static_shapes(const std::vector<std::vector<int64_t>>& shapes,
                                             const std::string& what) {
  std::optional<std::vector<int64_t>> out = try_broadcast_static_shapes(shapes);
  if (!out) throw_not_broadcastable(shapes, what);
  return *std::move(out);
}

bool may_broadcast_to(const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
  if (from.size() > to.size()) return false;
  const size_t lead = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) {
    const int64_t a = from[i], b = to[lead + i];
    if (a != kUnknownDim && b != kUnknownDim && a != 1 && a != b) return false;
  }
  return true;
}

Shape broadcast_shapes(const std::vector<Shape>& shapes, const std::string& what) {
  // Concrete shapes are static shapes with every dim known.
  std::optional<Shape> out = try_broadcast_static_shapes(shapes);
  if (!out) throw_not_broadcastable(shapes, what);
  return *std::move(out);
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
