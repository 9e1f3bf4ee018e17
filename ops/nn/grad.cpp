// Gradient rules of the nn family: Softmax, LogSoftmax and LogSumExp, all written with the
// op's own output (s, log s, logsumexp) so no exp of x is recomputed unshifted.
#include "ops/core/apply.h"
#include "ops/core/node.h"
#include "ops/gradient/build.h"
#include "ops/nn/log_softmax_grad.h"
#include "ops/nn/logsumexp.h"
#include "ops/nn/softmax.h"
#include "ops/reduce/reduce_grad.h"

namespace tgc {

using gradient::mul;
using gradient::sub;

std::vector<VarPtr> Softmax::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  const VarPtr& x = node.inputs().at(0);
  const VarPtr& g = output_grads.at(0);
  if (!g || !is_float(x->type().dtype)) return {nullptr};
  VarPtr y = node.output(0);
  VarPtr gx;
  if (log_) {
    // y = x - lse(x): dy_i/dx_j = delta_ij - softmax_j, so gx = g - exp(y) * sum(g), one
    // op (a GPU row kernel; decompose_for_fusion writes it out elsewhere). A g of another
    // dtype than y gets the formula itself.
    if (g->type().dtype == y->type().dtype) {
      gx = apply1(std::make_shared<LogSoftmaxGrad>(axis_), {g, y});
    } else {
      VarPtr s = gradient::ew(ScalarOpKind::Exp, {y});
      gx = sub(g, mul(s, reduce_grad::sum_axes(g, {axis_}, true)));
    }
  } else {
    // ds_i/dx_j = s_i (delta_ij - s_j), so gx = s * (g - sum(g * s)).
    gx = mul(y, sub(g, reduce_grad::sum_axes(mul(g, y), {axis_}, true)));
  }
  return {gradient::cast(gx, x->type().dtype)};
}

std::vector<VarPtr> LogSumExp::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  const VarPtr& x = node.inputs().at(0);
  const VarPtr& g = output_grads.at(0);
  if (!g || !is_float(x->type().dtype)) return {nullptr};
  const int ndim = x->type().ndim();
  VarPtr y = reduce_grad::keepdims_form(node.output(0), axes(), ndim, keepdims());
  VarPtr gk = reduce_grad::keepdims_form(g, axes(), ndim, keepdims());
  // d lse / d x_i = exp(x_i - lse): the softmax over the reduced axes.
  VarPtr weights = gradient::ew(ScalarOpKind::Exp, {sub(x, y)});
  return {gradient::cast(mul(gk, weights), x->type().dtype)};
}

}  // namespace tgc
