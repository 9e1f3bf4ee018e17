// Concatenate{axis} and Stack{axis}: NumPy's concatenate and stack of n tensors, with the
// inputs' dtypes promoted to a common one.
#pragma once

#include "ops/core/op.h"

namespace tgc {

// Joins tensors along an existing axis; every other dim must match.
class Concatenate : public Op {
 public:
  explicit Concatenate(int axis) : axis_(axis) {}
  int axis() const { return axis_; }

  std::string name() const override { return "Concatenate{axis=" + std::to_string(axis_) + "}"; }
  std::string op_class() const override { return "Concatenate"; }
  std::string user_name() const override { return "concatenate"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::vector<std::shared_ptr<Variable>> grad(
      const Node& node, const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 private:
  int axis_;
};

// Joins tensors of one shape along a new axis.
class Stack : public Op {
 public:
  explicit Stack(int axis) : axis_(axis) {}
  int axis() const { return axis_; }

  std::string name() const override { return "Stack{axis=" + std::to_string(axis_) + "}"; }
  std::string op_class() const override { return "Stack"; }
  std::string user_name() const override { return "stack"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::vector<std::shared_ptr<Variable>> grad(
      const Node& node, const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 private:
  int axis_;
};

}  // namespace tgc
