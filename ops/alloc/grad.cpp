// Gradient rules of the alloc family: a filled tensor passes its gradient to the value it
// was filled with, summed over the dims the value was broadcast along; ranges and eye have
// no inputs to differentiate.
#include "ops/alloc/alloc.h"
#include "ops/alloc/arange.h"
#include "ops/alloc/eye.h"
#include "ops/core/node.h"
#include "ops/gradient/build.h"

namespace tgc {

namespace {

VarPtr value_grad(const VarPtr& g, const VarPtr& value) {
  if (!g || !is_float(value->type().dtype)) return nullptr;
  return gradient::sum_to_like(g, value);
}

}  // namespace

std::vector<VarPtr> Alloc::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  return {value_grad(output_grads[0], node.inputs()[0])};
}

// like's elements are never read: it only lends its shape, and gets no gradient.
std::vector<VarPtr> Fill::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  return {nullptr, value_grad(output_grads[0], node.inputs()[1])};
}

// No inputs: nothing to pass the gradient to (the outputs are constants of the graph).
std::vector<VarPtr> Arange::grad(const Node& /*node*/, const std::vector<VarPtr>& /*output_grads*/) const {
  return {};
}

std::vector<VarPtr> Eye::grad(const Node& /*node*/, const std::vector<VarPtr>& /*output_grads*/) const { return {}; }

}  // namespace tgc
