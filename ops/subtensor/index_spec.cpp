// Index descriptions: printing, and NumPy's rules for resolving them against a shape.
#include "ops/subtensor/index_spec.h"

#include <algorithm>

#include <fmt/format.h>

#include "ops/elemwise/broadcast.h"
#include "runtime/error.h"

namespace tgc {

IndexEntry IndexEntry::integer(int64_t i) {
  IndexEntry e;
  e.kind = Kind::Int;
  e.index = i;
  return e;
}

IndexEntry IndexEntry::slice(std::optional<int64_t> start, std::optional<int64_t> stop,
                             std::optional<int64_t> step) {
  IndexEntry e;
  e.kind = Kind::Slice;
  e.start = start;
  e.stop = stop;
  e.step = step;
  return e;
}

IndexEntry IndexEntry::new_axis() {
  IndexEntry e;
  e.kind = Kind::NewAxis;
  return e;
}

IndexEntry IndexEntry::array() {
  IndexEntry e;
  e.kind = Kind::Array;
  return e;
}

std::string IndexEntry::str() const {
  auto part = [](const std::optional<int64_t>& v) { return v ? std::to_string(*v) : std::string(); };
  switch (kind) {
    case Kind::Int: return std::to_string(index);
    case Kind::Slice: return part(start) + ":" + part(stop) + (step ? ":" + part(step) : std::string());
    case Kind::NewAxis: return "newaxis";
    case Kind::Array: return "array";
  }
  return "";
}

int IndexSpec::num_arrays() const {
  int n = 0;
  for (const IndexEntry& e : entries) n += e.kind == IndexEntry::Kind::Array;
  return n;
}

std::string IndexSpec::str() const {
  std::string out;
  for (size_t i = 0; i < entries.size(); ++i) out += (i ? ", " : "") + entries[i].str();
  return out;
}

namespace {

// NumPy's slice resolution (clamping out-of-range bounds): first index, step and length
// for an axis of size n.
struct SliceRange {
  int64_t start, step, length;
};

SliceRange resolve_slice(const IndexEntry& e, int64_t n) {
  int64_t step = e.step.value_or(1);
  int64_t start, stop;
  if (step > 0) {
    auto clamp = [n](int64_t v) { return v < 0 ? std::max<int64_t>(v + n, 0) : std::min(v, n); };
    start = e.start ? clamp(*e.start) : 0;
    stop = e.stop ? clamp(*e.stop) : n;
    return {start, step, stop > start ? (stop - start - 1) / step + 1 : 0};
  }
  // Negative steps walk down from n-1; -1 stands for "before the first element".
  auto clamp = [n](int64_t v) { return v < 0 ? std::max<int64_t>(v + n, -1) : std::min(v, n - 1); };
  start = e.start ? clamp(*e.start) : n - 1;
  stop = e.stop ? clamp(*e.stop) : -1;
  return {start, step, start > stop ? (start - stop - 1) / (-step) + 1 : 0};
}

// Wraps a negative index and checks it against the axis size (unknown sizes pass).
int64_t check_index(const std::string& op, int64_t i, int axis, int64_t n) {
  if (n == kUnknownDim) return i;
  if (i < -n || i >= n)
    throw ValueError(fmt::format("{}: index {} is out of bounds for axis {} with size {}", op, i, axis, n), "",
                     fmt::format("valid indices for this axis are {} .. {}", -n, n - 1));
  return i < 0 ? i + n : i;
}

// NumPy broadcasting of the index arrays' shapes; unknown dims stay unknown unless another
// array fixes them.
Shape broadcast_index_shapes(const std::string& op, const std::vector<Shape>& shapes) {
  std::optional<Shape> out = try_broadcast_static_shapes(shapes);
  if (!out) {
    std::string all;
    for (const Shape& t : shapes) all += (all.empty() ? "" : " ") + static_shape_str(t);
    throw ShapeError(
        fmt::format("{}: shape mismatch: indexing arrays could not be broadcast together with shapes {}", op, all),
        "", "index arrays must broadcast against each other, as in NumPy");
  }
  return *std::move(out);
}

}  // namespace

IndexLayout resolve_index(const std::string& op, const IndexSpec& spec, const Shape& shape,
                          const Strides& strides, const std::vector<Shape>& array_shapes) {
  const int ndim = static_cast<int>(shape.size());
  const bool concrete = !strides.empty() || ndim == 0;
  int consumed = 0;
  for (const IndexEntry& e : spec.entries) consumed += e.consumes_axis();
  if (consumed > ndim)
    throw TypeError(fmt::format("{}: too many indices for tensor: tensor is {}-dimensional, but {} were indexed",
                                op, ndim, consumed),
                    "", "give at most one integer, slice or index array per axis");
  TGC_INTERNAL_CHECK(static_cast<int>(array_shapes.size()) == spec.num_arrays(),
                     op + ": index arrays do not match the index description");
  std::vector<IndexEntry> entries = spec.entries;
  for (int i = consumed; i < ndim; ++i) entries.push_back(IndexEntry::slice());  // x[0] is x[0, :]

  const bool advanced = spec.has_arrays();
  IndexLayout out;
  std::vector<Shape> bshapes;
  std::vector<int> adv_positions;  // entry positions, for NumPy's adjacency rule
  int axis = 0, array = 0;
  for (size_t pos = 0; pos < entries.size(); ++pos) {
    const IndexEntry& e = entries[pos];
    const int64_t n = e.consumes_axis() ? shape[axis] : 1;
    const int64_t stride = concrete && e.consumes_axis() ? strides[axis] : 0;
    const int view_axis = static_cast<int>(out.view_shape.size());
    switch (e.kind) {
      case IndexEntry::Kind::Int: {
        int64_t i = check_index(op, e.index, axis, n);
        if (advanced) {
          out.advanced.push_back({view_axis, axis, -1, i});
          adv_positions.push_back(static_cast<int>(pos));
          bshapes.push_back({});
          out.view_shape.push_back(n);
          out.view_strides.push_back(stride);
        } else {
          out.view_offset += i * stride;
        }
        ++axis;
        break;
      }
      case IndexEntry::Kind::Slice: {
        if (e.step && *e.step == 0)
          throw ValueError(op + ": slice step cannot be zero", "", "use a positive or negative step");
        if (n == kUnknownDim) {
          out.view_shape.push_back(kUnknownDim);
          out.view_strides.push_back(0);
        } else {
          SliceRange r = resolve_slice(e, n);
          out.view_shape.push_back(r.length);
          out.view_strides.push_back(stride * r.step);
          if (r.length > 0) out.view_offset += r.start * stride;
        }
        ++axis;
        break;
      }
      case IndexEntry::Kind::NewAxis:
        out.view_shape.push_back(1);
        out.view_strides.push_back(0);
        break;
      case IndexEntry::Kind::Array:
        out.advanced.push_back({view_axis, axis, array, 0});
        adv_positions.push_back(static_cast<int>(pos));
        bshapes.push_back(array_shapes[array]);
        ++array;
        out.view_shape.push_back(n);
        out.view_strides.push_back(stride);
        ++axis;
        break;
    }
  }

  if (!advanced) {
    out.result_shape = out.view_shape;
    return out;
  }
  out.bshape = broadcast_index_shapes(op, bshapes);
  bool adjacent = true;
  for (size_t k = 1; k < adv_positions.size(); ++k) adjacent &= adv_positions[k] == adv_positions[k - 1] + 1;
  out.bpos = adjacent ? out.advanced.front().view_axis : 0;
  // The result: the basic view dims, with the broadcast dims spliced in at bpos.
  std::vector<bool> is_adv(out.view_shape.size(), false);
  for (const auto& a : out.advanced) is_adv[a.view_axis] = true;
  Shape basic;
  for (size_t d = 0; d < out.view_shape.size(); ++d)
    if (!is_adv[d]) basic.push_back(out.view_shape[d]);
  out.result_shape.assign(basic.begin(), basic.begin() + out.bpos);
  out.result_shape.insert(out.result_shape.end(), out.bshape.begin(), out.bshape.end());
  out.result_shape.insert(out.result_shape.end(), basic.begin() + out.bpos, basic.end());
  return out;
}

Type index_result_type(const std::string& op, const IndexSpec& spec, const Type& x,
                       const std::vector<Type>& arrays) {
  std::vector<Shape> array_shapes;
  for (size_t k = 0; k < arrays.size(); ++k) {
    DType t = arrays[k].dtype;
    if (!is_integer(t))
      throw TypeError(fmt::format("{}: index arrays must have an integer dtype, got {} for index array {}", op,
                                  dtype_name(t), k),
                      "",
                      t == DType::Bool ? "boolean mask indexing is not supported; index with integer positions"
                                       : "cast the indices to an integer dtype with astype(DType::Int64)");
    array_shapes.push_back(arrays[k].shape);
  }
  return Type(x.dtype, resolve_index(op, spec, x.shape, {}, array_shapes).result_shape);
}

}  // namespace tgc
