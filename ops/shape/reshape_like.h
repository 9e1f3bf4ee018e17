// ReshapeLike: x's elements in the runtime shape of another tensor. Gradients need it:
// Reshape's target and Flatten's rule are static, but the shape a gradient must return to
// (the input's) is only known when the function runs.
#pragma once

#include "ops/core/op.h"

namespace tgc {

// Inputs {x, like}: x reshaped to like's shape (like's elements are never read). A view
// of x when x is contiguous, a copy otherwise.
class ReshapeLike : public Op {
 public:
  std::string name() const override { return "ReshapeLike"; }
  std::string op_class() const override { return "Reshape"; }
  std::string user_name() const override { return "reshape_like"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  int view_of_input(int /*output*/) const override { return 0; }
  std::vector<std::shared_ptr<Variable>> grad(
      const Node& node, const std::vector<std::shared_ptr<Variable>>& output_grads) const override;
};

}  // namespace tgc
