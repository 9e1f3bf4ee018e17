// canonicalize's arithmetic rules: neutral operands, double negation, small powers,
// exp/log pairs and casts that change nothing. Each returns {} when it does not apply.
#include <cmath>

#include "compiler/passes/canonicalize_rules.h"
#include "ops/alloc/alloc.h"
#include "ops/core/apply.h"

namespace tgc::canon {

namespace {

using K = ScalarOpKind;

const Type& out_type(const Node& n) { return n.output_raw(0)->type(); }

// x for `x op c` (and `c op x` when `either_side`) where c is filled with `value` and does
// not broadcast x up; cast to the output's dtype.
std::vector<VarPtr> drop_neutral(const Node& n, K kind, double value, bool either_side) {
  if (!elemwise(n, kind) || n.inputs().size() != 2) return {};
  for (int side : {1, 0}) {
    if (side == 0 && !either_side) break;
    const VarPtr& c = n.inputs()[side];
    const VarPtr& x = n.inputs()[1 - side];
    if (is_filled_with(*c, value) && broadcasts_into(c->type(), x->type()))
      return {as_dtype(x, out_type(n).dtype)};
  }
  return {};
}

// The base x of `x ** c` with c filled with `value` and not broadcasting x up, or null.
const VarPtr* pow_base(const Node& n, double value) {
  if (!elemwise(n, K::Pow)) return nullptr;
  const VarPtr& c = n.inputs()[1];
  if (!is_filled_with(*c, value) || !broadcasts_into(c->type(), n.inputs()[0]->type())) return nullptr;
  return &n.inputs()[0];
}

}  // namespace

std::vector<VarPtr> mul_by_one(Node& n, const RewriteEnv&) { return drop_neutral(n, K::Mul, 1, true); }
std::vector<VarPtr> add_zero(Node& n, const RewriteEnv&) { return drop_neutral(n, K::Add, 0, true); }
std::vector<VarPtr> sub_zero(Node& n, const RewriteEnv&) { return drop_neutral(n, K::Sub, 0, false); }
std::vector<VarPtr> div_by_one(Node& n, const RewriteEnv&) { return drop_neutral(n, K::TrueDiv, 1, false); }
std::vector<VarPtr> pow_one(Node& n, const RewriteEnv&) { return drop_neutral(n, K::Pow, 1, false); }

std::vector<VarPtr> sub_self(Node& n, const RewriteEnv&) {
  if (!elemwise(n, K::Sub) || n.inputs()[0] != n.inputs()[1]) return {};
  const VarPtr& x = n.inputs()[0];
  return {apply1(std::make_shared<Fill>(), {x, scalar_constant(0, out_type(n).dtype)})};
}

std::vector<VarPtr> neg_neg(Node& n, const RewriteEnv&) {
  if (!elemwise(n, K::Neg) || !produced_by(*n.inputs()[0], K::Neg)) return {};
  return {as_dtype(n.inputs()[0]->owner()->inputs()[0], out_type(n).dtype)};
}

std::vector<VarPtr> pow_two(Node& n, const RewriteEnv&) {
  const VarPtr* x = pow_base(n, 2);
  if (!x) return {};
  const DType out = out_type(n).dtype;
  return {ew(K::Square, {as_dtype(*x, out)}, elemwise(n, K::Pow)->floatx())};
}

std::vector<VarPtr> pow_half(Node& n, const RewriteEnv&) {
  const VarPtr* x = pow_base(n, 0.5);
  const DType out = out_type(n).dtype;
  if (!x || !is_float(out)) return {};
  return {ew(K::Sqrt, {as_dtype(*x, out)}, elemwise(n, K::Pow)->floatx())};
}

// Integer x ** -1 raises at run time (a negative integer power): left alone.
std::vector<VarPtr> pow_minus_one(Node& n, const RewriteEnv&) {
  const VarPtr* x = pow_base(n, -1);
  const DType out = out_type(n).dtype;
  if (!x || !is_float(out)) return {};
  return {ew(K::TrueDiv, {scalar_constant(1, out), as_dtype(*x, out)}, elemwise(n, K::Pow)->floatx())};
}

std::vector<VarPtr> exp_log(Node& n, const RewriteEnv&) {
  if (!elemwise(n, K::Exp) || !produced_by(*n.inputs()[0], K::Log)) return {};
  return {as_dtype(n.inputs()[0]->owner()->inputs()[0], out_type(n).dtype)};
}

std::vector<VarPtr> log_exp(Node& n, const RewriteEnv&) {
  if (!elemwise(n, K::Log) || !produced_by(*n.inputs()[0], K::Exp)) return {};
  return {as_dtype(n.inputs()[0]->owner()->inputs()[0], out_type(n).dtype)};
}

std::vector<VarPtr> useless_cast(Node& n, const RewriteEnv&) {
  const Elemwise* e = elemwise(n, K::Cast);
  if (!e || n.inputs()[0]->type().dtype != *e->cast_to()) return {};
  return {n.inputs()[0]};
}

}  // namespace tgc::canon
