// canonicalize's constant rules: constants an elementwise op only broadcasts become 0-d
// (fusion then folds them into the kernel), chains of scalings and shifts by constants become
// one constant where that is exact (or fast_math allows it), and a where whose condition is
// a constant picks its branch.
//
// Exactness. A float chain c1 * (c2 * x) is folded into (c1*c2) * x only when one of c1, c2
// is a power of two (negation included: -1 is one) and c1*c2 is exact in the dtype: scaling
// by 2^k commutes with rounding, so both forms round the same real number once. The rule
// assumes, as every such compiler rule does, that the intermediate c2*x neither overflows nor
// underflows (where it does, the folded form is the more accurate one). Signed integers
// fold any chain whose folded constant fits (wrapping arithmetic is a ring). With
// fast_math=true any finite float constants fold, and float shifts (x + c1) + c2 too.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "compiler/passes/canonicalize_rules.h"
#include "compiler/passes/constant_fold.h"
#include "ops/alloc/alloc.h"
#include "ops/core/apply.h"
#include "ops/shape/dimshuffle.h"
#include "runtime/convert.h"

namespace tgc::canon {

namespace {

using K = ScalarOpKind;

const Type& out_type(const Node& n) { return n.output_raw(0)->type(); }

bool is_signed_int(DType d) {
  return d == DType::Int8 || d == DType::Int16 || d == DType::Int32 || d == DType::Int64;
}

// The one value every element of constant `t` has, or nothing.
std::optional<double> uniform_value(const Tensor& t) {
  if (!t.defined() || !t.on_host() || t.numel() == 0) return std::nullopt;
  Tensor c = t.contiguous();
  return dispatch_dtype(c.dtype(), [&]<typename T>() -> std::optional<double> {
    const T* p = c.data<T>();
    for (int64_t i = 1, n = c.numel(); i < n; ++i)
      if (!(p[i] == p[0])) return std::nullopt;  // NaN elements never count as equal
    return convert_value<double>(p[0]);
  });
}

// The value of a 0-d constant of `dtype`, when its value is exact as a double.
std::optional<double> scalar_of(const Variable& v, DType dtype) {
  if (v.kind() != Variable::Kind::Constant || v.type().ndim() != 0 || v.type().dtype != dtype) return std::nullopt;
  const Tensor& t = v.constant_value();
  if (!t.defined() || !t.on_host()) return std::nullopt;
  const double value = t.at({});
  if (is_signed_int(dtype) && std::abs(value) > 0x1p53) return std::nullopt;
  return value;
}

// Whether `value` is a value of `dtype` exactly (no rounding, no overflow, not NaN).
bool exact_in(double value, DType dtype) {
  if (!std::isfinite(value)) return false;
  switch (dtype) {
    case DType::Float64: return true;
    case DType::Float32: return static_cast<double>(static_cast<float>(value)) == value;
    case DType::Int8: return value == std::trunc(value) && value >= -128 && value <= 127;
    case DType::Int16: return value == std::trunc(value) && value >= -32768 && value <= 32767;
    case DType::Int32: return value == std::trunc(value) && value >= -2147483648.0 && value <= 2147483647.0;
    case DType::Int64: return value == std::trunc(value) && std::abs(value) <= 0x1p53;
    default: return false;
  }
}

bool power_of_two(double v) {
  if (v == 0 || !std::isfinite(v)) return false;
  int e = 0;
  return std::abs(std::frexp(v, &e)) == 0.5;
}

// One link of a chain: the node computes scale * x (a scaling) or x + shift (a shift), all
// in one dtype.
struct Link {
  enum class Kind { Scale, Shift } kind;
  double constant;  // the scale or the shift
  bool exact;       // the constant is exactly the op's meaning (1/c of a division by 2^k)
  VarPtr x;
};

std::optional<Link> link_of(const Node& n, bool fast_math) {
  const auto* e = dynamic_cast<const Elemwise*>(&n.op());
  if (!e || e->inplace_input(0) >= 0 || n.num_outputs() != 1) return std::nullopt;
  const DType d = out_type(n).dtype;
  if (!is_float(d) && !is_signed_int(d)) return std::nullopt;
  const auto& in = n.inputs();
  auto of_dtype = [&](const VarPtr& v) { return v->type().dtype == d; };
  switch (e->kind()) {
    case K::Neg:
      if (of_dtype(in[0])) return Link{Link::Kind::Scale, -1, true, in[0]};
      return std::nullopt;
    case K::Mul:
    case K::Add:
      for (int side : {0, 1})
        if (auto c = scalar_of(*in[side], d); c && of_dtype(in[1 - side]))
          return Link{e->kind() == K::Mul ? Link::Kind::Scale : Link::Kind::Shift, *c, true, in[1 - side]};
      return std::nullopt;
    case K::Sub:
      if (auto c = scalar_of(*in[1], d); c && of_dtype(in[0])) return Link{Link::Kind::Shift, -*c, true, in[0]};
      return std::nullopt;
    case K::TrueDiv: {
      auto c = scalar_of(*in[1], d);
      if (!c || !is_float(d) || !of_dtype(in[0]) || *c == 0) return std::nullopt;
      const double inverse = 1 / *c;
      const bool exact = power_of_two(*c) && exact_in(inverse, d);
      if (!exact && !fast_math) return std::nullopt;
      return Link{Link::Kind::Scale, inverse, exact, in[0]};
    }
    default:
      return std::nullopt;
  }
}

// The product of two scales when folding them is exact (see the file comment).
std::optional<double> fold_scales(const Link& outer, const Link& inner, DType d, bool fast_math) {
  const double p = outer.constant * inner.constant;
  if (!exact_in(p, d)) {
    if (!(fast_math && is_float(d) && std::isfinite(p))) return std::nullopt;
    return p;  // rounded into the dtype when the constant is made
  }
  if (!is_float(d) || fast_math) return p;
  if (!outer.exact || !inner.exact) return std::nullopt;
  if (std::fma(outer.constant, inner.constant, -p) != 0) return std::nullopt;  // p rounded in double
  if (!power_of_two(outer.constant) && !power_of_two(inner.constant)) return std::nullopt;
  return p;
}

std::optional<double> fold_shifts(const Link& outer, const Link& inner, DType d, bool fast_math) {
  const double s = outer.constant + inner.constant;
  if (is_signed_int(d)) return exact_in(s, d) ? std::optional<double>(s) : std::nullopt;
  if (fast_math && std::isfinite(s)) return s;
  return std::nullopt;
}

// Whether a (constant) operand of shape `c` adds nothing to the broadcast of the other
// operands: none of its dims is other than 1 or another operand's known dim there (known
// statically or from shape facts: a shared y's value makes `full((256, 1), c) * y` c * y).
bool adds_no_shape(const Node& n, size_t operand, ShapeEquivalence& shapes) {
  const Type& c = n.inputs()[operand]->type();
  for (size_t i = 0; i < n.inputs().size(); ++i) {
    if (i == operand || c.ndim() > n.inputs()[i]->type().ndim()) continue;
    if (broadcasts_into(c, n.inputs()[i]->type())) return true;
    const std::vector<DimId> other = shapes.dims(*n.inputs()[i]);
    const size_t lead = other.size() - static_cast<size_t>(c.ndim());
    bool covered = true;
    for (int d = 0; d < c.ndim() && covered; ++d)
      covered = c.shape[d] == 1 || (c.shape[d] != kUnknownDim && shapes.known(other[lead + d]) == c.shape[d]);
    if (covered) return true;
  }
  return false;
}

// Whether every element of the condition is true (nonzero, NaN included) or every one is
// false: a constant, or an Alloc, Fill or DimShuffle of one.
std::optional<bool> constant_truth(const Variable& v) {
  if (v.kind() == Variable::Kind::Constant) {
    const Tensor& t = v.constant_value();
    if (!t.defined() || !t.on_host() || t.numel() == 0) return std::nullopt;
    Tensor c = t.contiguous();
    return dispatch_dtype(c.dtype(), [&]<typename T>() -> std::optional<bool> {
      const T* p = c.data<T>();
      const bool first = convert_value<double>(p[0]) != 0;
      for (int64_t i = 1, n = c.numel(); i < n; ++i)
        if ((convert_value<double>(p[i]) != 0) != first) return std::nullopt;
      return first;
    });
  }
  const Node* n = v.owner();
  if (!n) return std::nullopt;
  const Op& op = n->op();
  if (dynamic_cast<const Alloc*>(&op) || dynamic_cast<const DimShuffle*>(&op)) return constant_truth(*n->inputs()[0]);
  if (dynamic_cast<const Fill*>(&op)) return constant_truth(*n->inputs()[1]);
  return std::nullopt;
}

}  // namespace

std::vector<VarPtr> fold_constants(Node& n, const RewriteEnv&) {
  // constant_fold's policy exactly (an alloc of a constant is folded up to its size limit):
  // a second run of the pipeline, whose constant_fold comes first, would fold what this left.
  std::vector<Tensor> values = fold_node(n);
  std::vector<VarPtr> out;
  for (size_t i = 0; i < values.size(); ++i) {
    out.push_back(Variable::constant(values[i]));
    if (!interchangeable(n.output_raw(static_cast<int>(i))->type(), out.back()->type())) return {};
  }
  return out;
}

std::vector<VarPtr> scalar_constant_operand(Node& n, const RewriteEnv& env) {
  // The operands a constant may be: every one of an elemwise, the value of a fill or alloc
  // (whose shape is like's or the static shape anyway).
  const bool elementwise = dynamic_cast<const Elemwise*>(&n.op()) != nullptr;
  const bool fill = dynamic_cast<const Fill*>(&n.op()) != nullptr;
  const bool alloc = dynamic_cast<const Alloc*>(&n.op()) != nullptr;
  if ((!elementwise && !fill && !alloc) || (elementwise && n.inputs().size() < 2)) return {};
  for (size_t i = fill ? 1 : 0; i < n.inputs().size(); ++i) {
    const VarPtr& c = n.inputs()[i];
    if (c->kind() != Variable::Kind::Constant || c->type().ndim() == 0 || (!alloc && !adds_no_shape(n, i, env.shapes))) continue;
    std::optional<double> value = uniform_value(c->constant_value());
    if (!value || (c->type().dtype == DType::Int64 && std::abs(*value) > 0x1p53)) continue;  // double holds it
    std::vector<VarPtr> inputs = n.inputs();
    inputs[i] = scalar_constant(*value, c->type().dtype);
    VarPtr out = apply1(n.op_ptr(), std::move(inputs));
    if (!interchangeable(out_type(n), out->type())) continue;
    return {out};
  }
  return {};
}

std::vector<VarPtr> constant_chain(Node& n, const RewriteEnv& env) {
  const bool fast_math = env.ctx.config.fast_math;
  std::optional<Link> outer = link_of(n, fast_math);
  if (!outer || !outer->x->owner()) return {};
  std::optional<Link> inner = link_of(*outer->x->owner(), fast_math);
  if (!inner || inner->kind != outer->kind) return {};
  const DType d = out_type(n).dtype;
  const DType floatx = static_cast<const Elemwise&>(n.op()).floatx();
  if (outer->kind == Link::Kind::Scale) {
    std::optional<double> s = fold_scales(*outer, *inner, d, fast_math);
    if (!s) return {};
    if (*s == 1) return {inner->x};
    if (*s == -1) return {ew(K::Neg, {inner->x}, floatx)};
    return {ew(K::Mul, {scalar_constant(*s, d), inner->x}, floatx)};
  }
  std::optional<double> s = fold_shifts(*outer, *inner, d, fast_math);
  if (!s) return {};
  if (*s == 0) return {inner->x};
  return {ew(K::Add, {inner->x, scalar_constant(*s, d)}, floatx)};
}

std::vector<VarPtr> where_constant_condition(Node& n, const RewriteEnv& env) {
  if (!elemwise(n, K::Where)) return {};
  std::optional<bool> truth = constant_truth(*n.inputs()[0]);
  if (!truth) return {};
  // Otherwise the where broadcasts the branch to the other operands' shape, as a fill does;
  // it stays (specialize makes this very where of the fills the fill rules could not remove,
  // and turning it back into a fill would undo that on every run: the pipeline would not be
  // idempotent).
  const VarPtr& chosen = n.inputs()[*truth ? 1 : 2];
  if (!env.shapes.same_shape(*n.output_raw(0), *chosen)) return {};
  return {as_dtype(chosen, out_type(n).dtype)};
}

}  // namespace tgc::canon
