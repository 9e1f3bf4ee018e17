// The convolution ops: Conv2d (x, w) -> y and its two gradients, ops of their own so that a
// backend maps each to one library call (oneDNN's / cuDNN's forward, backward-data and
// backward-weights). conv_transpose2d is Conv2dGradInput without a shape to take.
// Every attribute a library descriptor needs is in Conv2dParams; sizes come from
// conv_geometry (conv_params.h), the one place they are decided.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ops/conv/conv_params.h"
#include "ops/core/op.h"

namespace tgc {

class ConvOpBase : public Op {
 public:
  explicit ConvOpBase(Conv2dParams params) : params_(params) {}
  const Conv2dParams& params() const { return params_; }
  std::string op_class() const override { return class_name(); }
  std::string name() const override { return class_name() + "{" + params_.describe() + "}"; }

 protected:
  virtual std::string class_name() const = 0;
  // Both float operands of one dtype (the result's); TypeError otherwise.
  DType check_dtypes(const std::vector<Type>& inputs) const;
  Conv2dParams params_;
};

// y = conv2d(x, w): cross-correlation as in PyTorch / cuDNN (no kernel flip).
class Conv2d : public ConvOpBase {
 public:
  using ConvOpBase::ConvOpBase;
  std::string user_name() const override { return "conv2d"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // gx = Conv2dGradInput(g, w, like x); gw = Conv2dGradWeights(x, g, like w).
  std::vector<std::shared_ptr<Variable>> grad(const Node& node,
                                              const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 protected:
  std::string class_name() const override { return "Conv2d"; }
};

// dx = Conv2dGradInput(dy, w[, x_like]): the input's gradient, x's spatial size taken from
// x_like (any tensor of x's shape) or, with two inputs, derived as conv_transpose2d does.
class Conv2dGradInput : public ConvOpBase {
 public:
  // `transpose`: built by conv_transpose2d (its user name in messages).
  Conv2dGradInput(Conv2dParams params, bool transpose) : ConvOpBase(params), transpose_(transpose) {}
  std::string user_name() const override { return transpose_ ? "conv_transpose2d" : "conv2d_grad_input"; }
  bool transpose() const { return transpose_; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // d dy = conv2d(g, w); d w = Conv2dGradWeights(g, dy, like w); x_like: none.
  std::vector<std::shared_ptr<Variable>> grad(const Node& node,
                                              const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 protected:
  std::string class_name() const override { return transpose_ ? "ConvTranspose2d" : "Conv2dGradInput"; }

 private:
  bool transpose_;
};

// dw = Conv2dGradWeights(x, dy, w_like): the weights' gradient, the kernel's size taken from
// w_like (any tensor of w's shape).
class Conv2dGradWeights : public ConvOpBase {
 public:
  using ConvOpBase::ConvOpBase;
  std::string user_name() const override { return "conv2d_grad_weights"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // d x = Conv2dGradInput(dy, g, like x); d dy = conv2d(x, g); w_like: none.
  std::vector<std::shared_ptr<Variable>> grad(const Node& node,
                                              const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 protected:
  std::string class_name() const override { return "Conv2dGradWeights"; }
};

}  // namespace tgc
