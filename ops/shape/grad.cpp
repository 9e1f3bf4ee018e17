// Gradient rules of the shape family: each moves the output gradient back to the input's
// layout — a reshape to the input's (runtime) shape, or the inverse axis permutation.
#include <numeric>

#include "ops/core/apply.h"
#include "ops/core/node.h"
#include "ops/gradient/build.h"
#include "ops/shape/dimshuffle.h"
#include "ops/shape/flatten.h"
#include "ops/shape/reshape.h"
#include "ops/shape/reshape_like.h"

namespace tgc {

namespace {

// g in x's shape: a static Reshape when x's shape is known when the graph is built, else
// a ReshapeLike that reads x's shape when the function runs. Null for non-float x.
VarPtr reshape_back(const VarPtr& g, const VarPtr& x) {
  if (!g || !is_float(x->type().dtype)) return nullptr;
  VarPtr out = x->type().fully_known() ? apply1(std::make_shared<Reshape>(x->type().shape), {g})
                                       : apply1(std::make_shared<ReshapeLike>(), {g, x});
  return gradient::cast(out, x->type().dtype);
}

}  // namespace

std::vector<VarPtr> Reshape::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  return {reshape_back(output_grads[0], node.inputs()[0])};
}

std::vector<VarPtr> Flatten::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  return {reshape_back(output_grads[0], node.inputs()[0])};
}

// The like input only lends its shape.
std::vector<VarPtr> ReshapeLike::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  return {reshape_back(output_grads[0], node.inputs()[0]), nullptr};
}

// The inverse pattern: input axis a comes back from the output axis it went to; the new
// ('x') axes of the output are dropped from g, and the input's dropped size-1 axes return
// as new axes.
std::vector<VarPtr> DimShuffle::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  const VarPtr& x = node.inputs()[0];
  const VarPtr& g = output_grads[0];
  if (!g || !is_float(x->type().dtype)) return {nullptr};
  std::vector<int> inverse(x->type().ndim(), -1);
  for (size_t i = 0; i < pattern_.size(); ++i)
    if (pattern_[i] >= 0) inverse[pattern_[i]] = static_cast<int>(i);
  std::vector<int> identity(pattern_.size());
  std::iota(identity.begin(), identity.end(), 0);
  if (inverse == identity) return {gradient::cast(g, x->type().dtype)};
  return {gradient::cast(apply1(std::make_shared<DimShuffle>(inverse), {g}), x->type().dtype)};
}

}  // namespace tgc
