// ArangeLike's rules (ops/alloc/arange_like.h).
#include "ops/alloc/arange_like.h"

#include <numeric>

namespace tgc {

std::vector<Type> ArangeLike::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1 && axis_ >= 0 && axis_ < inputs[0].ndim(),
                     "ArangeLike takes one input with its axis");
  return {Type(DType::Int64, {inputs[0].shape[axis_]})};
}

std::vector<Shape> ArangeLike::infer_shapes(const std::vector<Shape>& inputs) const {
  return {{inputs[0].at(axis_)}};
}

void ArangeLike::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  std::vector<int64_t> values(static_cast<size_t>(inputs[0].shape().at(axis_)));
  std::iota(values.begin(), values.end(), int64_t{0});
  outputs[0] = Tensor::from_vector(values);
}

std::vector<std::shared_ptr<Variable>> ArangeLike::grad(const Node&,
                                                        const std::vector<std::shared_ptr<Variable>>&) const {
  return {nullptr};
}

}  // namespace tgc
