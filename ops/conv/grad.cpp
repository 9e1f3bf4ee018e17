// Gradient rules of the convolution ops. The three ops are closed under differentiation (each
// is bilinear in its two tensor operands), so gradients of any order stay library calls.
#include "ops/conv/conv2d.h"
#include "ops/core/apply.h"
#include "ops/core/node.h"

namespace tgc {

std::vector<VarPtr> Conv2d::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  const VarPtr &x = node.inputs().at(0), &w = node.inputs().at(1), &g = output_grads.at(0);
  if (!g) return {nullptr, nullptr};
  return {apply1(std::make_shared<Conv2dGradInput>(params_, false), {g, w, x}),
          apply1(std::make_shared<Conv2dGradWeights>(params_), {x, g, w})};
}

std::vector<VarPtr> Conv2dGradInput::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  const VarPtr &dy = node.inputs().at(0), &w = node.inputs().at(1), &g = output_grads.at(0);
  std::vector<VarPtr> out(node.inputs().size(), nullptr);
  if (!g) return out;
  Conv2dParams p = params_;
  p.output_padding = {0, 0};  // conv2d of the transposed output gives dy's size back
  out[0] = apply1(std::make_shared<Conv2d>(p), {g, w});
  out[1] = apply1(std::make_shared<Conv2dGradWeights>(p), {g, dy, w});
  return out;
}

std::vector<VarPtr> Conv2dGradWeights::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  const VarPtr &x = node.inputs().at(0), &dy = node.inputs().at(1), &g = output_grads.at(0);
  if (!g) return {nullptr, nullptr, nullptr};
  return {apply1(std::make_shared<Conv2dGradInput>(params_, false), {dy, g, x}),
          apply1(std::make_shared<Conv2d>(params_), {x, g}), nullptr};
}

}  // namespace tgc
