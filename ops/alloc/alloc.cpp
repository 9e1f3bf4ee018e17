// Alloc and Fill: shape rules and the broadcast fill.
#include "ops/alloc/alloc.h"

#include <optional>

#include <fmt/format.h>

#include "ops/elemwise/broadcast.h"

namespace tgc {

namespace {

// A concrete shape as a fully known static type: the shape rules below are written once,
// on types (the dtype plays no part in them).
Type known(const Shape& shape) { return Type(DType::Float32, shape); }

}  // namespace

std::vector<Type> Alloc::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, "Alloc takes one input");
  for (int64_t d : shape_)
    if (d < 0)
      throw ValueError(fmt::format("alloc: negative dimension {} in shape {}", d, shape_str(shape_)), "",
                       "every dimension must be >= 0");
  const Type& v = inputs[0];
  if (!may_broadcast_to(v.shape, shape_))
    throw ShapeError(fmt::format("alloc: a value of shape {} cannot be broadcast to shape {}",
                                 static_shape_str(v.shape), shape_str(shape_)),
                     "", "pass a scalar value, or one that broadcasts to the requested shape");
  return {Type(v.dtype, shape_)};
}

std::vector<Shape> Alloc::infer_shapes(const std::vector<Shape>& inputs) const {
  return {infer_types({known(inputs.at(0))})[0].shape};
}

void Alloc::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  infer_shapes({inputs[0].shape()});
  Tensor& out = ensure_output(outputs[0], inputs[0].dtype(), shape_);
  copy_elements(inputs[0].broadcast_to(shape_), out);
}

std::vector<Type> Fill::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 2, "Fill takes two inputs");
  std::optional<std::vector<int64_t>> shape = try_broadcast_static_shapes({inputs[0].shape, inputs[1].shape});
  if (!shape)
    throw ShapeError(fmt::format("fill: shapes {} and {} cannot be broadcast together",
                                 static_shape_str(inputs[0].shape), static_shape_str(inputs[1].shape)),
                     "", "the value must broadcast against the tensor whose shape it fills");
  return {Type(inputs[1].dtype, *std::move(shape))};
}

std::vector<Shape> Fill::infer_shapes(const std::vector<Shape>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 2, "Fill takes two inputs");
  return {infer_types({known(inputs[0]), known(inputs[1])})[0].shape};
}

void Fill::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  Shape shape = infer_shapes({inputs[0].shape(), inputs[1].shape()})[0];
  Tensor& out = ensure_output(outputs[0], inputs[1].dtype(), shape);
  copy_elements(inputs[1].broadcast_to(shape), out);
}

}  // namespace tgc
