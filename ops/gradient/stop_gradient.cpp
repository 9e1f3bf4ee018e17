// StopGradient: an identity for evaluation, a wall for grad().
#include "ops/gradient/stop_gradient.h"

#include "runtime/error.h"

namespace tgc {

std::vector<Type> StopGradient::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, "StopGradient takes one input");
  return {inputs[0]};
}

std::vector<Shape> StopGradient::infer_shapes(const std::vector<Shape>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, "StopGradient takes one input");
  return {inputs[0]};
}

void StopGradient::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  outputs[0] = inputs[0];
}

std::vector<VarPtr> StopGradient::grad(const Node&, const std::vector<VarPtr>&) const { return {nullptr}; }

}  // namespace tgc
