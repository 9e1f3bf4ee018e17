// ArangeLike{axis}: 0, 1, ..., n-1 (int64) where n is the size of `like`'s axis: Theano's
// arange(x.shape[i]) (the row indices of a batch whose size is known only when the function
// runs). Like ShapeOf it reads only its input's shape, so a device tensor is not copied for
// it; where the size is known when the function is compiled it folds into an Arange.
#pragma once

#include "ops/core/op.h"

namespace tgc {

class ArangeLike : public Op {
 public:
  explicit ArangeLike(int axis) : axis_(axis) {}
  int axis() const { return axis_; }

  std::string name() const override { return "ArangeLike{" + std::to_string(axis_) + "}"; }
  std::string op_class() const override { return "ArangeLike"; }
  std::string user_name() const override { return "arange"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // Indices do not change with small changes of like's elements: no gradient flows.
  std::vector<std::shared_ptr<Variable>> grad(
      const Node& node, const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 private:
  int axis_;  // in 0 .. like's rank - 1
};

}  // namespace tgc
