// Reshape: NumPy's reshape to a static target shape with at most one -1; a view of the
// input when it is contiguous, a copy otherwise.
#pragma once

#include "ops/core/op.h"

namespace tgc {

class Reshape : public Op {
 public:
  explicit Reshape(Shape target) : target_(std::move(target)) {}
  const Shape& target() const { return target_; }

  std::string name() const override;  // "Reshape{(5, -1)}"
  std::string op_class() const override { return "Reshape"; }
  std::string user_name() const override { return "reshape"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  int view_of_input(int /*output*/) const override { return 0; }
  std::vector<std::shared_ptr<Variable>> grad(
      const Node& node, const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 private:
  Shape target_;
};

// The target with its -1 resolved for an input of `size` elements; throws ValueError for
// a malformed target and ShapeError when the sizes do not match.
Shape resolve_reshape(const Shape& target, int64_t size);

}  // namespace tgc
