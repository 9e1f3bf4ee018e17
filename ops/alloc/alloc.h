// Alloc{shape} and Fill: new tensors filled with a value — Alloc to a static shape
// (zeros, ones), Fill to the shape of another tensor (Theano's fill/second: zeros_like).
#pragma once

#include "ops/core/op.h"

namespace tgc {

// Inputs {value}: a tensor of `shape` holding `value` broadcast (a scalar, usually).
class Alloc : public Op {
 public:
  explicit Alloc(Shape shape) : shape_(std::move(shape)) {}
  const Shape& shape() const { return shape_; }

  std::string name() const override { return "Alloc{" + shape_str(shape_) + "}"; }
  std::string op_class() const override { return "Alloc"; }
  std::string user_name() const override { return "alloc"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::vector<std::shared_ptr<Variable>> grad(
      const Node& node, const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 private:
  Shape shape_;
};

// Inputs {like, value}: the broadcast of both shapes (like's shape, for a scalar value),
// filled with value; the dtype is value's. like's elements are never read.
class Fill : public Op {
 public:
  std::string name() const override { return "Fill"; }
  std::string op_class() const override { return "Fill"; }
  std::string user_name() const override { return "fill"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::vector<std::shared_ptr<Variable>> grad(
      const Node& node, const std::vector<std::shared_ptr<Variable>>& output_grads) const override;
};

}  // namespace tgc
