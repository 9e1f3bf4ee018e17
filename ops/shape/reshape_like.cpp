// ReshapeLike's rules: the sizes must agree; the shape is the second input's.
#include "ops/shape/reshape_like.h"

#include <fmt/format.h>

namespace tgc {

namespace {

void check_sizes(const std::string& x, int64_t x_size, const std::string& like, int64_t like_size) {
  if (x_size != like_size)
    throw ShapeError(fmt::format("reshape_like: cannot reshape {} ({} elements) to the shape of {} ({} elements)",
                                 x, x_size, like, like_size),
                     "", "both tensors must have the same number of elements");
}

// The number of elements of a static shape, or -1 when it is not known.
int64_t static_size(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  bool known = true;
  for (int64_t d : shape) {
    if (d == 0) return 0;
    if (d == kUnknownDim) known = false;
    else n *= d;
  }
  return known ? n : -1;
}

}  // namespace

std::vector<Type> ReshapeLike::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 2, "ReshapeLike takes two inputs");
  const int64_t nx = static_size(inputs[0].shape), nl = static_size(inputs[1].shape);
  if (nx >= 0 && nl >= 0) check_sizes(inputs[0].str(), nx, inputs[1].str(), nl);
  return {Type(inputs[0].dtype, inputs[1].shape)};
}

std::vector<Shape> ReshapeLike::infer_shapes(const std::vector<Shape>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 2, "ReshapeLike takes two inputs");
  check_sizes("a tensor of shape " + shape_str(inputs[0]), shape_numel(inputs[0]),
              "a tensor of shape " + shape_str(inputs[1]), shape_numel(inputs[1]));
  return {inputs[1]};
}

void ReshapeLike::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  infer_shapes({inputs[0].shape(), inputs[1].shape()});
  outputs[0] = inputs[0].reshape(inputs[1].shape());
}

}  // namespace tgc
