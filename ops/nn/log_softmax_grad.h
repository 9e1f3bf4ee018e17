// LogSoftmaxGrad: the gradient of log_softmax along one axis, g - exp(y) * sum(g, axis) with
// y = log_softmax(x) and the sum kept as a size-1 axis, as one op so that a GPU runs it as one
// row kernel (backends/gpu/row_thunks.h); where no backend does, decompose_for_fusion writes
// it out as that formula. g has y's shape (a gradient has its variable's shape: the formula
// sums g's own elements) and both are floats of one dtype, which the result has. The reference
// evaluation sums g in double, computes each element in double and rounds once.
#pragma once

#include <string>
#include <vector>

#include "ops/core/op.h"

namespace tgc {

class LogSoftmaxGrad : public Op {
 public:
  // `axis` non-negative (the LogSoftmax's axis); inputs (g, y).
  explicit LogSoftmaxGrad(int axis);

  int axis() const { return axis_; }

  std::string name() const override;  // "LogSoftmaxGrad{axis=1}"
  std::string op_class() const override { return "LogSoftmaxGrad"; }
  std::string user_name() const override { return "log_softmax_grad"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // With s = exp(y) and h the incoming gradient: g gets h - sum(h * s), y gets -h * s * sum(g).
  std::vector<std::shared_ptr<Variable>> grad(const Node& node,
                                              const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 private:
  int axis_;
};

}  // namespace tgc
