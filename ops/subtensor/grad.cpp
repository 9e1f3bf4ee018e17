// Gradient rules of the indexing family: indexing scatters its gradient back into zeros
// of the input's shape (accumulating repeated advanced indices), and inc/set_subtensor
// gather the value's gradient from the indexed part of g.
#include "ops/core/apply.h"
#include "ops/core/node.h"
#include "ops/gradient/build.h"
#include "ops/subtensor/inc_subtensor.h"
#include "ops/subtensor/subtensor.h"

namespace tgc {

namespace {

bool differentiable(const VarPtr& v) { return is_float(v->type().dtype); }

// zeros_like(x) with g added at `spec` (index arrays `arrays`): the gradient of x[spec].
VarPtr scatter(const IndexSpec& spec, const VarPtr& x, const VarPtr& g, const std::vector<VarPtr>& arrays) {
  std::vector<VarPtr> inputs = {gradient::zeros_like(x), gradient::cast(g, x->type().dtype)};
  inputs.insert(inputs.end(), arrays.begin(), arrays.end());
  return apply1(std::make_shared<IncSubtensor>(IncSubtensor::Mode::Inc, spec), inputs);
}

// g[spec], with a gather when the spec has index arrays.
VarPtr gather(const IndexSpec& spec, const VarPtr& g, const std::vector<VarPtr>& arrays) {
  if (!spec.has_arrays()) return apply1(std::make_shared<Subtensor>(spec), {g});
  std::vector<VarPtr> inputs = {g};
  inputs.insert(inputs.end(), arrays.begin(), arrays.end());
  return apply1(std::make_shared<AdvancedSubtensor>(spec), inputs);
}

}  // namespace

std::vector<VarPtr> Subtensor::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  const VarPtr& x = node.inputs()[0];
  if (!output_grads[0] || !differentiable(x)) return {nullptr};
  return {scatter(spec_, x, output_grads[0], {})};
}

// IncSubtensor's Inc mode sums repeated indices, as the chain rule wants: x[i] read twice
// gets both gradients. Index arrays have no gradient.
std::vector<VarPtr> AdvancedSubtensor::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  const std::vector<VarPtr>& in = node.inputs();
  std::vector<VarPtr> out(in.size(), nullptr);
  if (output_grads[0] && differentiable(in[0]))
    out[0] = scatter(spec_, in[0], output_grads[0], std::vector<VarPtr>(in.begin() + 1, in.end()));
  return out;
}

// inc: x passes g through whole; set: x's indexed part is overwritten, so its gradient
// is zero there. The value's gradient is g at the index, summed over the dims the value
// was broadcast along. With repeated array indices a set keeps only the last write; this
// rule then credits every duplicate, as Theano's does.
std::vector<VarPtr> IncSubtensor::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  const std::vector<VarPtr>& in = node.inputs();
  const VarPtr& x = in[0];
  const VarPtr& v = in[1];
  const VarPtr& g = output_grads[0];
  std::vector<VarPtr> out(in.size(), nullptr);
  if (!g) return out;
  const std::vector<VarPtr> arrays(in.begin() + 2, in.end());
  if (differentiable(x)) {
    if (mode_ == Mode::Inc) {
      out[0] = gradient::cast(g, x->type().dtype);
    } else {
      std::vector<VarPtr> inputs = {g, gradient::scalar_like(0.0, g)};
      inputs.insert(inputs.end(), arrays.begin(), arrays.end());
      out[0] = gradient::cast(apply1(std::make_shared<IncSubtensor>(Mode::Set, spec_), inputs), x->type().dtype);
    }
  }
  if (differentiable(v)) out[1] = gradient::sum_to_like(gather(spec_, g, arrays), v);
  return out;
}

}  // namespace tgc
