// Gradient rules of the collectives. Each rank's cost is part of one total cost (the sum of
// the ranks' costs), so the gradient of a rank's input collects every rank's output
// gradient: all_reduce's is all_reduce, all_gather's is reduce_scatter, and back.
#include <memory>

#include "ops/collective/all_gather.h"
#include "ops/collective/all_reduce.h"
#include "ops/collective/broadcast.h"
#include "ops/collective/reduce_scatter.h"
#include "ops/core/apply.h"
#include "ops/core/node.h"
#include "ops/gradient/build.h"

namespace tgc {
namespace {

// Where x equals the reduced value y (max/min pick those elements), as a float mask.
VarPtr equal_mask(const VarPtr& x, const VarPtr& y) {
  return gradient::cast(gradient::ew(ScalarOpKind::Eq, {x, y}), x->type().dtype);
}

}  // namespace

std::vector<VarPtr> AllReduce::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  const VarPtr& x = node.inputs().at(0);
  const VarPtr& g = output_grads.at(0);
  if (!g || !is_float(x->type().dtype)) return {nullptr};
  if (kind_ == CollectiveOpKind::Sum || kind_ == CollectiveOpKind::Mean)
    return {gradient::cast(apply1(std::make_shared<AllReduce>(kind_, group()), {g}), x->type().dtype)};
  VarPtr summed = apply1(std::make_shared<AllReduce>(CollectiveOpKind::Sum, group()), {g});
  return {gradient::cast(gradient::mul(summed, equal_mask(x, node.output(0))), x->type().dtype)};
}

std::vector<VarPtr> AllGather::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  const VarPtr& x = node.inputs().at(0);
  const VarPtr& g = output_grads.at(0);
  if (!g || !is_float(x->type().dtype)) return {nullptr};
  return {gradient::cast(apply1(std::make_shared<ReduceScatter>(CollectiveOpKind::Sum, axis_, group()), {g}),
                         x->type().dtype)};
}

std::vector<VarPtr> ReduceScatter::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  const VarPtr& x = node.inputs().at(0);
  const VarPtr& g = output_grads.at(0);
  if (!g || !is_float(x->type().dtype)) return {nullptr};
  VarPtr gathered = apply1(std::make_shared<AllGather>(axis_, group()), {g});
  switch (kind_) {
    case CollectiveOpKind::Sum: break;
    case CollectiveOpKind::Mean:
      gathered = gradient::div(gathered, gradient::scalar_like(group_size(), gathered));
      break;
    default: {
      VarPtr y = apply1(std::make_shared<AllGather>(axis_, group()), {node.output(0)});
      gathered = gradient::mul(gathered, equal_mask(x, y));
    }
  }
  return {gradient::cast(gathered, x->type().dtype)};
}

std::vector<VarPtr> Broadcast::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  const VarPtr& x = node.inputs().at(0);
  const VarPtr& g = output_grads.at(0);
  if (!g || !is_float(x->type().dtype)) return {nullptr};
  // Every rank joins the sum (a collective is called by all); only the root keeps it.
  VarPtr summed = apply1(std::make_shared<AllReduce>(CollectiveOpKind::Sum, group()), {g});
  const double keep = group()->rank() == root_ ? 1.0 : 0.0;
  return {gradient::cast(gradient::mul(summed, gradient::scalar_like(keep, summed)), x->type().dtype)};
}

}  // namespace tgc
