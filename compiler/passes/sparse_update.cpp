// sparse_update: the rule table, the pass that runs it, and the rules. A rule sees the added or
// subtracted term through scattered_into_zeros(): an IncSubtensor{Inc} into zeros of x's shape,
// possibly scaled by a 0-d factor, and rebuilds it as an increment of x itself.
#include "compiler/passes/sparse_update.h"

#include <optional>

#include "ops/alloc/alloc.h"
#include "ops/core/apply.h"
#include "ops/elemwise/elemwise.h"
#include "ops/subtensor/inc_subtensor.h"
#include "runtime/convert.h"
#include "runtime/error.h"

namespace tgc {

namespace {

using K = ScalarOpKind;

const Elemwise* elemwise_of(const Node& n, K kind) {
  const auto* e = dynamic_cast<const Elemwise*>(&n.op());
  return e && e->kind() == kind && e->inplace_input(0) < 0 ? e : nullptr;
}

// A constant all of whose elements are `value` (NaN never is).
bool constant_all(const Variable& v, double value) {
  if (v.kind() != Variable::Kind::Constant) return false;
  const Tensor& t = v.constant_value();
  if (!t.defined() || !t.on_host()) return false;
  const Tensor c = t.contiguous();
  return dispatch_dtype(c.dtype(), [&]<typename T>() {
    const T* p = c.data<T>();
    for (int64_t i = 0, n = c.numel(); i < n; ++i)
      if (convert_value<double>(p[i]) != value) return false;
    return true;
  });
}

// Whether every element of v is 0 by construction: a zero constant, or what zeros_like and
// zeros() become on the way through the optimizer — Fill(like, 0) (the gradient of indexing
// builds it), Alloc(0, shape) (canonicalize's fill_to_alloc) and where(true, 0, like)
// (specialize's fill_to_elemwise).
bool all_zeros(const Variable& v) {
  if (v.kind() == Variable::Kind::Constant) return constant_all(v, 0.0);
  const Node* n = v.owner();
  if (!n) return false;
  const Op& op = n->op();
  if (dynamic_cast<const Fill*>(&op)) return constant_all(*n->inputs()[1], 0.0);
  if (dynamic_cast<const Alloc*>(&op)) return constant_all(*n->inputs()[0], 0.0);
  if (elemwise_of(*n, K::Where)) {
    const Variable& cond = *n->inputs()[0];
    return cond.kind() == Variable::Kind::Constant && !constant_all(cond, 0.0) && constant_all(*n->inputs()[1], 0.0);
  }
  return false;
}

// The term a rule rewrites: inc_subtensor(zeros[i], v), times `scale` when it is set.
struct Scattered {
  const Node* inc = nullptr;
  VarPtr scale;  // 0-d, or null
};

// `term` as an increment of zeros of x's shape and dtype (x's shape proven from the graph:
// zeros_like(x) itself, or dims shape equivalence shows equal), or nothing.
std::optional<Scattered> scattered_into_zeros(const VarPtr& term, const VarPtr& x, const RewriteEnv& env) {
  const DType dtype = x->type().dtype;
  if (dtype == DType::Bool || term->type().dtype != dtype || !term->owner()) return std::nullopt;
  Scattered s;
  VarPtr inc = term;
  if (const Node* mul = term->owner(); elemwise_of(*mul, K::Mul)) {
    for (int side = 0; side < 2 && !s.inc; ++side) {
      const VarPtr& c = mul->inputs()[side];
      const VarPtr& other = mul->inputs()[1 - side];
      if (c->type().ndim() != 0 || c->type().dtype == DType::Bool || !other->owner()) continue;
      if (!dynamic_cast<const IncSubtensor*>(&other->owner()->op())) continue;
      s.scale = c;
      inc = other;
      s.inc = other->owner();
    }
    if (!s.inc) return std::nullopt;
  } else {
    s.inc = term->owner();
  }
  const auto* op = dynamic_cast<const IncSubtensor*>(&s.inc->op());
  if (!op || op->mode() != IncSubtensor::Mode::Inc || op->inplace_input(0) >= 0) return std::nullopt;
  const VarPtr& zeros = s.inc->inputs()[0];
  if (inc->type().dtype != dtype || zeros->type().dtype != dtype || !all_zeros(*zeros)) return std::nullopt;
  if (!env.shapes.same_shape(*zeros, *x)) return std::nullopt;
  return s;
}

// inc_subtensor(x[i], v') for the term `s`, v' = v scaled by s.scale and negated when
// `negate`; v is cast to x's dtype first (the increment casts it there anyway). Null when the
// result would not be interchangeable with `replaced`.
VarPtr increment_of_x(const VarPtr& x, const Scattered& s, bool negate, DType floatx, const Variable& replaced) {
  const DType dtype = x->type().dtype;
  VarPtr v = s.inc->inputs()[1];
  if (v->type().dtype != dtype) v = apply1(std::make_shared<Elemwise>(K::Cast, dtype, floatx), {v});
  VarPtr scale = s.scale;
  if (scale && negate) {
    // -c is exact: a float constant is negated here, anything else by a node.
    if (scale->kind() == Variable::Kind::Constant && is_float(scale->type().dtype))
      scale = Variable::constant(Tensor::full(scale->type().dtype, Shape{}, -scale->constant_value().at({})));
    else
      scale = apply1(std::make_shared<Elemwise>(K::Neg, std::nullopt, floatx), {scale});
  }
  if (scale) v = apply1(std::make_shared<Elemwise>(K::Mul, std::nullopt, floatx), {scale, v});
  else if (negate) v = apply1(std::make_shared<Elemwise>(K::Neg, std::nullopt, floatx), {v});
  if (v->type().dtype != dtype) v = apply1(std::make_shared<Elemwise>(K::Cast, dtype, floatx), {v});
  std::vector<VarPtr> inputs = {x, v};
  inputs.insert(inputs.end(), s.inc->inputs().begin() + 2, s.inc->inputs().end());
  VarPtr out;
  try {
    out = apply1(s.inc->op_ptr(), inputs);
  } catch (const Error&) {
    return nullptr;  // a static shape the value cannot broadcast to (never at run time)
  }
  return interchangeable(replaced.type(), out->type()) ? out : nullptr;
}

// x + inc_subtensor(zeros_like(x)[i], v) -> inc_subtensor(x[i], v), either order; with a scale,
// x + c * inc(...) -> inc_subtensor(x[i], c * v).
std::vector<VarPtr> add_inc_zeros(Node& n, const RewriteEnv& env) {
  const Elemwise* add = elemwise_of(n, K::Add);
  if (!add || n.inputs().size() != 2) return {};
  for (int side = 0; side < 2; ++side) {
    const VarPtr& x = n.inputs()[1 - side];
    if (x->type().dtype != n.output_raw(0)->type().dtype) continue;
    if (std::optional<Scattered> s = scattered_into_zeros(n.inputs()[side], x, env))
      if (VarPtr out = increment_of_x(x, *s, false, add->floatx(), *n.output_raw(0))) return {out};
  }
  return {};
}

// x - inc_subtensor(zeros_like(x)[i], v) -> inc_subtensor(x[i], -v);
// x - c * inc(...) -> inc_subtensor(x[i], -c * v): the SGD step on a gathered parameter.
std::vector<VarPtr> sub_inc_zeros(Node& n, const RewriteEnv& env) {
  const Elemwise* sub = elemwise_of(n, K::Sub);
  if (!sub) return {};
  const VarPtr& x = n.inputs()[0];
  if (x->type().dtype != n.output_raw(0)->type().dtype) return {};
  std::optional<Scattered> s = scattered_into_zeros(n.inputs()[1], x, env);
  if (!s) return {};
  if (VarPtr out = increment_of_x(x, *s, true, sub->floatx(), *n.output_raw(0))) return {out};
  return {};
}

}  // namespace

std::span<const LocalRewrite> sparse_update_rules() {
  // Repeated indices add their values into x one by one where the original summed them
  // first: the results agree up to rounding (docs/optimizations.md#sparse-update).
  static const LocalRewrite rules[] = {
      {"add_inc_zeros", "x + c * inc_subtensor(zeros_like(x)[i], v) -> inc_subtensor(x[i], c * v)", &add_inc_zeros},
      {"sub_inc_zeros", "x - c * inc_subtensor(zeros_like(x)[i], v) -> inc_subtensor(x[i], -c * v)", &sub_inc_zeros},
  };
  return rules;
}

bool sparse_update(Graph& graph, const PassContext& ctx) {
  return rewrite_to_fixed_point(graph, sparse_update_rules(), "sparse_update", ctx);
}

}  // namespace tgc
