// IfElse's gradient (Theano's): the output gradient flows to the branch taken, zeros to the
// other, each chosen by an IfElse of its own on the same condition. The condition gets none.
// The branches' backward work reads these (always needed) results, so it is not lazy; the
// values are right whichever branch runs (docs/control-flow.md).
#include "ops/control/ifelse.h"
#include "ops/core/node.h"
#include "ops/gradient/build.h"

namespace tgc {

std::vector<VarPtr> IfElse::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  const VarPtr& cond = node.inputs()[kCond];
  std::vector<VarPtr> result(node.inputs().size());
  for (int i = 0; i < n_; ++i) {
    const VarPtr& g = output_grads[i];
    const VarPtr& a = node.inputs()[then_input(i)];
    const VarPtr& b = node.inputs()[else_input(i)];
    if (!g || !is_float(a->type().dtype)) continue;  // no gradient reaches this pair, or integers
    const VarPtr ga = gradient::cast(g, a->type().dtype);
    result[then_input(i)] = make_ifelse(cond, {ga}, {gradient::zeros_like(a)})[0];
    result[else_input(i)] = make_ifelse(cond, {gradient::zeros_like(b)}, {ga})[0];
  }
  return result;
}

}  // namespace tgc
