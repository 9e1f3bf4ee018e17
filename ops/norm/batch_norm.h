// BatchNormTraining and BatchNormGrad: batch normalization's training form and its gradient as
// two ops, so that the backward pass is the two-pass formula every library uses
// (dbeta = sum(dy), dgamma = sum(dy * xhat), dx = gamma * invstd * (dy - mean(dy) - xhat *
// mean(dy * xhat))) and not what differentiating the forward formula node by node gives (five
// passes over the activations of a ResNet's batch norm, several of them through a mean's and
// a variance's chains). No backend runs them as they are: decompose_for_fusion writes both out
// as reductions and elementwise ops (compiler/passes/decompose_for_fusion.cpp), which fusion
// makes one multi-output reduction kernel and one elementwise kernel of, on every backend. The
// reference evaluations compute in double and round once.
//
// The channel axis is the one axis not reduced: 1 for (N, C) and (N, C, H, W), 3 for (N, H,
// W, C). x, gamma and beta share one float dtype; the statistics are (C,) vectors of it.
#pragma once

#include <string>
#include <vector>

#include "ops/core/op.h"

namespace tgc {

// What both ops share: the channel axis and epsilon (their name's parameters), three outputs
// (x's type, then two (C,) vectors), and the type and shape rules over their operands, x first,
// then the others named by roles(): "dy" has x's shape, any other is a (C,) vector.
class BatchNormOp : public Op {
 public:
  int channel_axis() const { return channel_axis_; }
  double epsilon() const { return epsilon_; }

  std::string name() const override;  // "BatchNormTraining{axis=1, epsilon=1e-05}"
  int num_outputs() const override { return 3; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;

 protected:
  BatchNormOp(int channel_axis, double epsilon);
  // The operands after x, by role.
  virtual const std::vector<std::string>& roles() const = 0;

 private:
  int channel_axis_;
  double epsilon_;
};

// Inputs (x, gamma, beta); outputs (y, mean, var): the batch's mean and biased variance over
// every axis but `channel_axis`, and y = (x - mean) / sqrt(var + epsilon) * gamma + beta.
class BatchNormTraining : public BatchNormOp {
 public:
  BatchNormTraining(int channel_axis, double epsilon) : BatchNormOp(channel_axis, epsilon) {}

  std::string op_class() const override { return "BatchNormTraining"; }
  std::string user_name() const override { return "batch_normalization_train"; }
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // y's gradient through BatchNormGrad; a gradient reaching the mean or the variance adds its
  // own term (dmean / n, and dvar * 2 (x - mean) / n).
  std::vector<std::shared_ptr<Variable>> grad(const Node& node,
                                              const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 protected:
  const std::vector<std::string>& roles() const override;
};

// Inputs (x, dy, gamma, mean, var) with mean and var BatchNormTraining's; outputs (dx, dgamma,
// dbeta). It has no gradient of its own (second derivatives through batch normalization): a
// TypeError says so.
class BatchNormGrad : public BatchNormOp {
 public:
  BatchNormGrad(int channel_axis, double epsilon) : BatchNormOp(channel_axis, epsilon) {}

  std::string op_class() const override { return "BatchNormGrad"; }
  std::string user_name() const override { return "batch_normalization_grad"; }
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // A TypeError naming what is missing (second derivatives).
  std::vector<std::shared_ptr<Variable>> grad(const Node& node,
                                              const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 protected:
  const std::vector<std::string>& roles() const override;
};

// The axes a batch norm over `channel_axis` of a rank-`ndim` tensor reduces (all the others).
std::vector<int> batch_norm_reduced_axes(int channel_axis, int ndim);
// The DimShuffle pattern that lays a (C,) vector along the channel axis of a rank-`ndim` tensor.
std::vector<int> batch_norm_spread_pattern(int channel_axis, int ndim);

}  // namespace tgc
