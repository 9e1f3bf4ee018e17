// Alloc and Fill: shape rules and the broadcast fill.
#include "ops/alloc/alloc.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "runtime/strided_loop.h"

namespace tgc {

namespace {

std::string dims_str(const std::vector<int64_t>& dims) {
  std::string out = "(";
  for (size_t i = 0; i < dims.size(); ++i)
    out += (i ? ", " : "") + (dims[i] == kUnknownDim ? std::string("?") : std::to_string(dims[i]));
  return out + (dims.size() == 1 ? ",)" : ")");
}

// NumPy broadcasting of two shapes whose dims may be unknown; nullopt when they clash.
std::optional<std::vector<int64_t>> broadcast2(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t nd = std::max(a.size(), b.size());
  std::vector<int64_t> out(nd);
  for (size_t k = 0; k < nd; ++k) {
    int64_t x = k < a.size() ? a[a.size() - 1 - k] : 1;
    int64_t y = k < b.size() ? b[b.size() - 1 - k] : 1;
    int64_t r;
    if (x == 1) r = y;
    else if (y == 1) r = x;
    else if (x == kUnknownDim) r = y;
    else if (y == kUnknownDim || x == y) r = x;
    else return std::nullopt;
    out[nd - 1 - k] = r;
  }
  return out;
}

// Whether a value of shape `v` may broadcast to the static `target` (unknown dims may).
bool may_broadcast_to(const std::vector<int64_t>& v, const Shape& target) {
  if (v.size() > target.size()) return false;
  const size_t lead = target.size() - v.size();
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] != kUnknownDim && v[i] != 1 && v[i] != target[lead + i]) return false;
  return true;
}

// Writes `value` broadcast over the whole of `out` (same dtype).
void broadcast_fill(const Tensor& value, Tensor& out) {
  const size_t esize = dtype_size(value.dtype());
  Tensor v = value.broadcast_to(out.shape());
  const char* s = static_cast<const char*>(v.raw_data());
  char* d = static_cast<char*>(out.raw_data());
  const auto e = static_cast<int64_t>(esize);
  strided_loop(out.shape(), {v.strides(), out.strides()},
               [&](const int64_t* off) { std::memcpy(d + off[1] * e, s + off[0] * e, esize); });
}

}  // namespace

std::vector<Type> Alloc::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, "Alloc takes one input");
  for (int64_t d : shape_)
    if (d < 0)
      throw ValueError(fmt::format("alloc: negative dimension {} in shape {}", d, shape_str(shape_)), "",
                       "every dimension must be >= 0");
  const Type& v = inputs[0];
  if (!may_broadcast_to(v.shape, shape_))
    throw ShapeError(fmt::format("alloc: a value of shape {} cannot be broadcast to shape {}", dims_str(v.shape),
                                 shape_str(shape_)),
                     "", "pass a scalar value, or one that broadcasts to the requested shape");
  return {Type(v.dtype, shape_)};
}

std::vector<Shape> Alloc::infer_shapes(const std::vector<Shape>& inputs) const {
  if (!may_broadcast_to(inputs[0], shape_))
    throw ShapeError(fmt::format("alloc: a value of shape {} cannot be broadcast to shape {}",
                                 shape_str(inputs[0]), shape_str(shape_)),
                     "", "pass a scalar value, or one that broadcasts to the requested shape");
  return {shape_};
}

void Alloc::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  infer_shapes({inputs[0].shape()});
  broadcast_fill(inputs[0], ensure_output(outputs[0], inputs[0].dtype(), shape_));
}

std::vector<Type> Fill::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 2, "Fill takes two inputs");
  auto b = broadcast2(inputs[0].shape, inputs[1].shape);
  if (!b)
    throw ShapeError(fmt::format("fill: shapes {} and {} cannot be broadcast together", dims_str(inputs[0].shape),
                                 dims_str(inputs[1].shape)),
                     "", "the value must broadcast against the tensor whose shape it fills");
  return {Type(inputs[1].dtype, *b)};
}

std::vector<Shape> Fill::infer_shapes(const std::vector<Shape>& inputs) const {
  auto b = broadcast2(inputs[0], inputs[1]);
  if (!b)
    throw ShapeError(fmt::format("fill: shapes {} and {} cannot be broadcast together", shape_str(inputs[0]),
                                 shape_str(inputs[1])),
                     "", "the value must broadcast against the tensor whose shape it fills");
  return {*b};
}

void Fill::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  Shape shape = infer_shapes({inputs[0].shape(), inputs[1].shape()})[0];
  broadcast_fill(inputs[1], ensure_output(outputs[0], inputs[1].dtype(), shape));
}

}  // namespace tgc
