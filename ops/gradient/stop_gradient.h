// StopGradient: the identity whose gradient is null, so grad() treats everything behind it
// as a constant (stop_gradient() in the API; Theano's consider_constant / disconnected_grad).
#pragma once

#include "ops/core/op.h"
#include "ops/core/variable.h"

namespace tgc {

class StopGradient : public Op {
 public:
  std::string name() const override { return "StopGradient"; }
  std::string op_class() const override { return "StopGradient"; }
  std::string user_name() const override { return "stop_gradient"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  // The output is the input itself (a view).
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  int view_of_input(int /*output*/) const override { return 0; }
  std::vector<VarPtr> grad(const Node& node, const std::vector<VarPtr>& output_grads) const override;
};

}  // namespace tgc
