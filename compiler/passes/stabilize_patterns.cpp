// Matchers and builders for the stabilize rules (see stabilize_patterns.h).
#include "compiler/passes/stabilize_patterns.h"

#include <memory>

#include "ops/core/apply.h"
#include "ops/core/graph.h"
#include "ops/shape/dimshuffle.h"
#include "runtime/config.h"

namespace tgc::stabilize_patterns {

using K = ScalarOpKind;

const Elemwise* elemwise_of(const Variable* v, ScalarOpKind kind) {
  if (!v || !v->owner()) return nullptr;
  auto* e = dynamic_cast<const Elemwise*>(&v->owner()->op());
  return e && e->kind() == kind ? e : nullptr;
}

const VarPtr& arg(const Variable* v, int i) { return v->owner()->inputs().at(i); }

std::optional<double> single_value(const Variable* v) {
  // A constant broadcast by a DimShuffle (an explicit broadcast a canonicalizer may make)
  // still holds one value.
  while (v->owner() && dynamic_cast<const DimShuffle*>(&v->owner()->op())) v = arg(v, 0).get();
  if (v->kind() != Variable::Kind::Constant || v->constant_value().numel() != 1) return std::nullopt;
  return v->constant_value().item<double>();
}

bool is_value(const Variable* v, double value) {
  std::optional<double> c = single_value(v);
  return c && *c == value;
}

VarPtr one_plus(const Variable* v) {
  if (!elemwise_of(v, K::Add)) return nullptr;
  if (is_value(arg(v, 0).get(), 1)) return arg(v, 1);
  if (is_value(arg(v, 1).get(), 1)) return arg(v, 0);
  return nullptr;
}

VarPtr one_minus(const Variable* v) {
  if (elemwise_of(v, K::Sub) && is_value(arg(v, 0).get(), 1)) return arg(v, 1);
  if (!elemwise_of(v, K::Add)) return nullptr;
  for (int i = 0; i < 2; ++i) {
    const VarPtr& other = arg(v, 1 - i);
    if (is_value(arg(v, i).get(), 1) && elemwise_of(other.get(), K::Neg)) return arg(other.get(), 0);
  }
  return nullptr;
}

VarPtr minus_one(const Variable* v) {
  if (elemwise_of(v, K::Sub) && is_value(arg(v, 1).get(), 1)) return arg(v, 0);
  if (!elemwise_of(v, K::Add)) return nullptr;
  if (is_value(arg(v, 0).get(), -1)) return arg(v, 1);
  if (is_value(arg(v, 1).get(), -1)) return arg(v, 0);
  return nullptr;
}

VarPtr reciprocal_of(const Node& node) {
  auto* e = dynamic_cast<const Elemwise*>(&node.op());
  if (!e) return nullptr;
  if (e->kind() == K::TrueDiv && is_value(node.inputs()[0].get(), 1)) return node.inputs()[1];
  if (e->kind() == K::Pow && is_value(node.inputs()[1].get(), -1)) return node.inputs()[0];
  return nullptr;
}

VarPtr Builder::ew(ScalarOpKind kind, std::vector<VarPtr> inputs) const {
  return apply1(std::make_shared<Elemwise>(kind, std::nullopt, floatx_), std::move(inputs));
}

VarPtr Builder::cast(const VarPtr& x, DType dtype) const {
  if (x->type().dtype == dtype) return x;
  return apply1(std::make_shared<Elemwise>(K::Cast, dtype, floatx_), {x});
}

VarPtr Builder::negate(const VarPtr& x) const {
  const Variable* v = x.get();
  if (elemwise_of(v, K::Neg)) return arg(v, 0);
  if (elemwise_of(v, K::Sub)) {
    const VarPtr &a = arg(v, 0), &b = arg(v, 1);
    // IEEE negation and a - b = -(b - a) are exact, so these keep the value bit for bit.
    if (elemwise_of(a.get(), K::Neg)) return ew(K::Add, {arg(a.get(), 0), b});
    return ew(K::Sub, {b, a});
  }
  if (elemwise_of(v, K::Add)) {
    const VarPtr &a = arg(v, 0), &b = arg(v, 1);
    if (elemwise_of(b.get(), K::Neg)) return ew(K::Sub, {arg(b.get(), 0), a});
    if (elemwise_of(a.get(), K::Neg)) return ew(K::Sub, {arg(a.get(), 0), b});
  }
  if (v->kind() == Variable::Kind::Constant && is_float(v->type().dtype) &&
      v->constant_value().numel() == 1) {
    const Tensor& c = v->constant_value();
    return Variable::constant(Tensor::full(c.dtype(), c.shape(), -c.item<double>()));
  }
  return ew(K::Neg, {x});
}

DType floatx_of(const Node& node) {
  if (auto* e = dynamic_cast<const Elemwise*>(&node.op())) return e->floatx();
  return global_config().floatX;
}

std::vector<VarPtr> replace_with(const Node& node, VarPtr replacement) {
  const Variable* out = node.output_raw(0);
  if (!replacement || !interchangeable(out->type(), replacement->type())) return {};
  if (replacement->owner() && replacement->name().empty()) replacement->set_name(out->name());
  return {std::move(replacement)};
}

}  // namespace tgc::stabilize_patterns
