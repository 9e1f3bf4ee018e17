// The log-add-exp and log1mexp formulas of the stabilize rules (see stable_forms.h).
#include "compiler/passes/stable_forms.h"

#include <cmath>
#include <numbers>

namespace tgc::stabilize_patterns {

namespace {

using K = ScalarOpKind;

VarPtr constant(DType t, double value) { return Variable::constant(Tensor::full(t, {}, value)); }

}  // namespace

VarPtr log_add_exp(const Builder& b, const VarPtr& x, const VarPtr& y, DType t) {
  // a + softplus(b - a) for a > b: softplus of a non-positive number, never exp of a large one.
  VarPtr x_above = b.ew(K::Add, {x, b.ew(K::Softplus, {b.ew(K::Sub, {y, x})})});
  VarPtr y_above = b.ew(K::Add, {y, b.ew(K::Softplus, {b.ew(K::Sub, {x, y})})});
  // At a tie a/2 + b/2 is a exactly (and stays finite for a near the type's maximum, where
  // a + b would overflow), and its gradient splits evenly as the function's does.
  VarPtr half = constant(t, 0.5);
  VarPtr tie = b.ew(K::Add, {b.ew(K::Add, {b.ew(K::Mul, {x, half}), b.ew(K::Mul, {y, half})}),
                             constant(t, std::numbers::ln2)});
  VarPtr not_x = b.ew(K::Where, {b.ew(K::Lt, {x, y}), y_above, tie});
  return b.ew(K::Where, {b.ew(K::Gt, {x, y}), x_above, not_x});
}

VarPtr log1mexp(const Builder& b, const VarPtr& x, DType t) {
  VarPtr near_zero = b.ew(K::Log, {b.ew(K::Neg, {b.ew(K::Expm1, {x})})});
  VarPtr far = b.ew(K::Log1p, {b.ew(K::Neg, {b.ew(K::Exp, {x})})});
  return b.ew(K::Where, {b.ew(K::Gt, {x, constant(t, -std::numbers::ln2)}), near_zero, far});
}

bool is_log1mexp_branch(const Variable* log1p_out, const Variable* x, const GraphEditor& graph) {
  for (const auto& [reader, pos] : graph.clients(log1p_out)) {
    if (pos != 2 || !dynamic_cast<const Elemwise*>(&reader->op()) ||
        static_cast<const Elemwise&>(reader->op()).kind() != K::Where)
      continue;
    const Variable* cond = reader->inputs()[0].get();
    if (!elemwise_of(cond, K::Gt) || arg(cond, 0).get() != x) continue;
    // float32_casting may have narrowed the threshold: -log 2 to float32's precision.
    std::optional<double> c = single_value(arg(cond, 1).get());
    if (c && std::abs(*c + std::numbers::ln2) < 1e-6) return true;
  }
  return false;
}

}  // namespace tgc::stabilize_patterns
