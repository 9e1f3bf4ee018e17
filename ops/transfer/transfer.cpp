// Types, host meaning and gradients of the transfer ops.
#include "ops/transfer/transfer.h"

#include "ops/core/apply.h"
#include "runtime/error.h"

namespace tgc {

std::vector<Type> TransferOp::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, name() + " takes one input");
  return {inputs[0]};
}

std::vector<Shape> TransferOp::infer_shapes(const std::vector<Shape>& inputs) const { return {inputs[0]}; }

void TransferOp::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  outputs[0] = inputs[0];
}

std::vector<std::shared_ptr<Variable>> TransferOp::grad(
    const Node& /*node*/, const std::vector<std::shared_ptr<Variable>>& output_grads) const {
  // Where a value lives does not change its derivative: the gradient flows through as is
  // (the placement pass moves it wherever its readers run).
  return {output_grads[0]};
}

}  // namespace tgc
