// Concatenate and Stack: static and concrete shape rules, and the copies that join.
#include "ops/join/join.h"

#include <fmt/format.h>


namespace tgc {

namespace {

void check_count(const std::string& op, size_t n) {
  if (n == 0) throw TypeError(op + ": need at least one tensor to join", "", "pass a non-empty list of tensors");
}

// The join rules are written once, on static types: concrete shapes and tensors go through
// them as fully known types (a shape's dtype plays no part in its shape rule).
std::vector<Type> types_of(const std::vector<Shape>& shapes) {
  std::vector<Type> types;
  for (const Shape& s : shapes) types.emplace_back(DType::Float32, s);
  return types;
}
std::vector<Type> types_of(const std::vector<Tensor>& tensors) {
  std::vector<Type> types;
  for (const Tensor& t : tensors) types.emplace_back(t.dtype(), t.shape());
  return types;
}

DType common_dtype(const std::vector<Type>& inputs) {
  DType t = inputs[0].dtype;
  for (const Type& in : inputs) t = promote(t, in.dtype);
  return t;
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
                                     d, static_shape_str(inputs[0].shape), i, static_shape_str(s)),
                         "", fmt::format("only dimension {} (the axis) may differ", axis));
      if (out[d] == kUnknownDim) out[d] = s[d];
    }
    total = (total == kUnknownDim || s[axis] == kUnknownDim) ? kUnknownDim : total + s[axis];
  }
  out[axis] = total;
  return {Type(common_dtype(inputs), out)};
}

std::vector<Shape> Concatenate::infer_shapes(const std::vector<Shape>& inputs) const {
  return {infer_types(types_of(inputs))[0].shape};
}

void Concatenate::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  Type out_type = infer_types(types_of(inputs))[0];
  const int axis = normalize_axis(axis_, out_type.ndim(), "concatenate");
  Tensor& out = ensure_output(outputs[0], out_type.dtype, out_type.shape);
  int64_t start = 0;
  for (const Tensor& in : inputs) {
    copy_elements(in, out.view(in.shape(), out.strides(), out.offset() + start * out.strides()[axis]));
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
                                   static_shape_str(inputs[0].shape), i, static_shape_str(s)),
                       "", "use concatenate() to join tensors along an axis where their sizes differ");
    for (size_t d = 0; d < s.size(); ++d)
      if (common[d] == kUnknownDim) common[d] = s[d];
  }
  const int axis = normalize_axis(axis_, static_cast<int>(common.size()) + 1, "stack");
  common.insert(common.begin() + axis, static_cast<int64_t>(inputs.size()));
  return {Type(common_dtype(inputs), common)};
}

std::vector<Shape> Stack::infer_shapes(const std::vector<Shape>& inputs) const {
  return {infer_types(types_of(inputs))[0].shape};
}

void Stack::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  Type out_type = infer_types(types_of(inputs))[0];
  const int axis = normalize_axis(axis_, out_type.ndim(), "stack");
  Tensor& out = ensure_output(outputs[0], out_type.dtype, out_type.shape);
  Strides slab = out.strides();
  slab.erase(slab.begin() + axis);
  for (size_t i = 0; i < inputs.size(); ++i)
    copy_elements(inputs[i], out.view(inputs[i].shape(), slab,
                                     out.offset() + static_cast<int64_t>(i) * out.strides()[axis]));
}

}  // namespace tgc
