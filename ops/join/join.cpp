// Concatenate and Stack: static and concrete shape rules, and the copies that join.
#include "ops/join/join.h"

#include <fmt/format.h>

#include "runtime/convert.h"
#include "runtime/strided_loop.h"

namespace tgc {

namespace {

std::string dim_str(int64_t d) { return d == kUnknownDim ? "?" : std::to_string(d); }

// Dims as a shape string with '?' for unknown ones: "(?, 3)".
std::string dims_str(const std::vector<int64_t>& dims) {
  std::string out = "(";
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + dim_str(dims[i]);
  return out + (dims.size() == 1 ? ",)" : ")");
}

void check_count(const std::string& op, size_t n) {
  if (n == 0) throw TypeError(op + ": need at least one tensor to join", "", "pass a non-empty list of tensors");
}

DType common_dtype(const std::vector<Type>& inputs) {
  DType t = inputs[0].dtype;
  for (const Type& in : inputs) t = promote(t, in.dtype);
  return t;
}

// Copies src into dst (same shape), converting the element type.
void convert_into(const Tensor& src, const Tensor& dst) {
  dispatch_dtype(src.dtype(), [&]<typename S>() {
    dispatch_dtype(dst.dtype(), [&]<typename D>() {
      const S* s = src.data<S>();
      D* d = dst.data<D>();
      strided_loop(src.shape(), {src.strides(), dst.strides()},
                   [&](const int64_t* off) { d[off[1]] = convert_value<D>(s[off[0]]); });
    });
  });
}

}  // namespace

std::vector<Type> Concatenate::infer_types(const std::vector<Type>& inputs) const {
  check_count("concatenate", inputs.size());
  const int ndim = inputs[0].ndim();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].ndim() == 0)
      throw TypeError("concatenate: zero-dimensional tensors cannot be concatenated", "",
                      "use stack() to join scalars into a vector");
    if (inputs[i].ndim() != ndim)
      throw TypeError(fmt::format("concatenate: all the input tensors must have the same number of dimensions, "
                                  "but the tensor at index 0 is a {} and the tensor at index {} is a {}",
                                  inputs[0].str(), i, inputs[i].str()),
                      "", "reshape or dimshuffle the inputs to one rank first");
  }
  const int axis = normalize_axis(axis_, ndim, "concatenate");
  std::vector<int64_t> out = inputs[0].shape;
  int64_t total = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto& s = inputs[i].shape;
    for (int d = 0; d < ndim; ++d) {
      if (d == axis) continue;
      if (s[d] != kUnknownDim && out[d] != kUnknownDim && s[d] != out[d])
        throw ShapeError(fmt::format("concatenate: all the input tensor dimensions except for the concatenation "
                                     "axis must match exactly, but along dimension {}, the tensor at index 0 has "
                                     "shape {} and the tensor at index {} has shape {}",
                                     d, dims_str(inputs[0].shape), i, dims_str(s)),
                         "", fmt::format("only dimension {} (the axis) may differ", axis));
      if (out[d] == kUnknownDim) out[d] = s[d];
    }
    total = (total == kUnknownDim || s[axis] == kUnknownDim) ? kUnknownDim : total + s[axis];
  }
  out[axis] = total;
  return {Type(common_dtype(inputs), out)};
}

std::vector<Shape> Concatenate::infer_shapes(const std::vector<Shape>& inputs) const {
  std::vector<Type> types;
  for (const Shape& s : inputs) types.emplace_back(DType::Float32, s);
  return {infer_types(types)[0].shape};
}

void Concatenate::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  std::vector<Type> types;
  for (const Tensor& t : inputs) types.emplace_back(t.dtype(), t.shape());
  Type out_type = infer_types(types)[0];
  const int axis = normalize_axis(axis_, out_type.ndim(), "concatenate");
  Tensor& out = ensure_output(outputs[0], out_type.dtype, out_type.shape);
  int64_t start = 0;
  for (const Tensor& in : inputs) {
    convert_into(in, out.view(in.shape(), out.strides(), out.offset() + start * out.strides()[axis]));
    start += in.shape()[axis];
  }
}

std::vector<Type> Stack::infer_types(const std::vector<Type>& inputs) const {
  check_count("stack", inputs.size());
  std::vector<int64_t> common = inputs[0].shape;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto& s = inputs[i].shape;
    bool same = s.size() == common.size();
    for (size_t d = 0; same && d < s.size(); ++d)
      same = s[d] == kUnknownDim || common[d] == kUnknownDim || s[d] == common[d];
    if (!same)
      throw ShapeError(fmt::format("stack: all input tensors must have the same shape, but the tensor at index 0 "
                                   "has shape {} and the tensor at index {} has shape {}",
                                   dims_str(inputs[0].shape), i, dims_str(s)),
                       "", "use concatenate() to join tensors along an axis where their sizes differ");
    for (size_t d = 0; d < s.size(); ++d)
      if (common[d] == kUnknownDim) common[d] = s[d];
  }
  const int axis = normalize_axis(axis_, static_cast<int>(common.size()) + 1, "stack");
  common.insert(common.begin() + axis, static_cast<int64_t>(inputs.size()));
  return {Type(common_dtype(inputs), common)};
}

std::vector<Shape> Stack::infer_shapes(const std::vector<Shape>& inputs) const {
  std::vector<Type> types;
  for (const Shape& s : inputs) types.emplace_back(DType::Float32, s);
  return {infer_types(types)[0].shape};
}

void Stack::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  std::vector<Type> types;
  for (const Tensor& t : inputs) types.emplace_back(t.dtype(), t.shape());
  Type out_type = infer_types(types)[0];
  const int axis = normalize_axis(axis_, out_type.ndim(), "stack");
  Tensor& out = ensure_output(outputs[0], out_type.dtype, out_type.shape);
  Strides slab = out.strides();
  slab.erase(slab.begin() + axis);
  for (size_t i = 0; i < inputs.size(); ++i)
    convert_into(inputs[i], out.view(inputs[i].shape(), slab,
                                     out.offset() + static_cast<int64_t>(i) * out.strides()[axis]));
}

}  // namespace tgc
