// ShapeOf's rules: the shape as an int64 vector of the input's rank (ops/shape/shape_of.h).
#include "ops/shape/shape_of.h"

#include "ops/alloc/arange_like.h"

namespace tgc {

std::vector<Type> ShapeOf::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, "Shape takes one input");
  return {Type(DType::Int64, {static_cast<int64_t>(inputs[0].ndim())})};
}

std::vector<Shape> ShapeOf::infer_shapes(const std::vector<Shape>& inputs) const {
  return {{static_cast<int64_t>(inputs[0].size())}};
}

void ShapeOf::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  // The input may live on a device: only its shape is read.
  const Shape& shape = inputs[0].shape();
  outputs[0] = Tensor::from_vector(std::vector<int64_t>(shape.begin(), shape.end()));
}

std::vector<std::shared_ptr<Variable>> ShapeOf::grad(const Node&,
                                                     const std::vector<std::shared_ptr<Variable>>&) const {
  return {nullptr};
}

bool reads_only_metadata(const Op& op) {
  return dynamic_cast<const ShapeOf*>(&op) != nullptr || dynamic_cast<const ArangeLike*>(&op) != nullptr;
}

}  // namespace tgc
