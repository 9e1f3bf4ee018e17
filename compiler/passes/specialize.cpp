// specialize: the rule table, the pass that runs it, and the rules. A rule sees a product —
// a Dot of float matrices/vectors, or a Gemm/Gemv already made — through as_product(), and
// rebuilds it with a scale or an addend folded in.
#include "compiler/passes/specialize.h"

#include <optional>

#include "ops/alloc/alloc.h"
#include "ops/blas/dot.h"
#include "ops/blas/gemm.h"
#include "ops/core/apply.h"
#include "ops/elemwise/elemwise.h"
#include "ops/gradient/build.h"
#include "ops/reduce/careduce.h"
#include "ops/shape/dimshuffle.h"
#include "runtime/error.h"

namespace tgc {

namespace {

using K = ScalarOpKind;

// alpha * op(a) @ op(b) + beta * c, as Gemm (b a matrix) or Gemv (b a vector) takes it.
struct Product {
  VarPtr a, b;
  bool trans_a = false, trans_b = false;
  bool vector = false;        // Gemv
  VarPtr alpha;               // 0-d
  VarPtr c, beta;             // no addend when c is null
  bool absorbed_transpose = false;  // a DimShuffle{1,0} operand became a flag
  DType dtype = DType::Float32;
};

bool blas_dtype(DType t) { return t == DType::Float32 || t == DType::Float64; }

const Elemwise* elemwise_of(const Node& n, ScalarOpKind kind) {
  const auto* e = dynamic_cast<const Elemwise*>(&n.op());
  return e && e->kind() == kind && e->inplace_input(0) < 0 ? e : nullptr;
}

// x when it is a DimShuffle{1,0} of a matrix, else null.
VarPtr untransposed(const Variable& v) {
  const Node* n = v.owner();
  if (!n) return nullptr;
  const auto* ds = dynamic_cast<const DimShuffle*>(&n->op());
  if (!ds || ds->pattern() != std::vector<int>{1, 0}) return nullptr;
  return n->inputs()[0];
}

bool is_constant(const Variable& v, double value) {
  return v.kind() == Variable::Kind::Constant && v.type().ndim() == 0 && v.constant_value().at({}) == value;
}

VarPtr scalar(double value, DType dtype) { return Variable::constant(Tensor::full(dtype, Shape{}, value)); }

// A factor that scales a whole tensor: a numeric 0-d variable.
bool is_scale(const Variable& v) { return v.type().ndim() == 0 && v.type().dtype != DType::Bool; }

// x * y for 0-d factors, folded when both are constants.
VarPtr mul_scalars(const VarPtr& x, const VarPtr& y, DType dtype) {
  if (is_constant(*x, 1)) return y;
  if (is_constant(*y, 1)) return x;
  if (x->kind() == Variable::Kind::Constant && y->kind() == Variable::Kind::Constant)
    return scalar(x->constant_value().at({}) * y->constant_value().at({}), dtype);
  return gradient::mul(x, y);
}

// x + y for 0-d scales, folded when both are constants.
VarPtr add_scalars(const VarPtr& x, const VarPtr& y, DType dtype) {
  if (is_constant(*x, 0)) return y;
  if (is_constant(*y, 0)) return x;
  if (x->kind() == Variable::Kind::Constant && y->kind() == Variable::Kind::Constant)
    return scalar(x->constant_value().at({}) + y->constant_value().at({}), dtype);
  return gradient::add(x, y);
}

// The product computed by v's producer, if it is one a Gemm/Gemv can take.
std::optional<Product> as_product(const Variable& v) {
  const Node* n = v.owner();
  if (!n || !blas_dtype(v.type().dtype)) return std::nullopt;
  Product p;
  p.dtype = v.type().dtype;
  if (const auto* mm = dynamic_cast<const ScaledMatmul*>(&n->op())) {
    if (mm->inplace()) return std::nullopt;  // only the inplace pass makes these, last
    const auto& in = n->inputs();
    p.a = in[ScaledMatmul::kA];
    p.b = in[ScaledMatmul::kB];
    p.trans_a = mm->trans_a();
    p.trans_b = mm->trans_b();
    p.vector = dynamic_cast<const Gemv*>(mm) != nullptr;
    p.alpha = in[ScaledMatmul::kAlpha];
    if (!is_constant(*in[ScaledMatmul::kBeta], 0)) {
      p.c = in[ScaledMatmul::kC];
      p.beta = in[ScaledMatmul::kBeta];
    }
    return p;
  }
  if (!dynamic_cast<const Dot*>(&n->op())) return std::nullopt;
  const VarPtr& x = n->inputs()[0];
  const VarPtr& y = n->inputs()[1];
  if (x->type().dtype != p.dtype || y->type().dtype != p.dtype) return std::nullopt;
  const int rx = x->type().ndim(), ry = y->type().ndim();
  if (rx == 2 && ry == 2) {
    p.a = x, p.b = y;
  } else if (rx == 2 && ry == 1) {
    p.a = x, p.b = y, p.vector = true;
  } else if (rx == 1 && ry == 2) {  // x @ B = B^T @ x
    p.a = y, p.b = x, p.vector = true, p.trans_a = true;
  } else {
    return std::nullopt;  // vector . vector: BLAS's dot already; nothing to fold
  }
  if (VarPtr m = untransposed(*p.a)) p.a = m, p.trans_a = !p.trans_a, p.absorbed_transpose = true;
  if (!p.vector)
    if (VarPtr m = untransposed(*p.b)) p.b = m, p.trans_b = !p.trans_b, p.absorbed_transpose = true;
  p.alpha = scalar(1, p.dtype);
  return p;
}

// The product as one Gemm/Gemv node, or null when its types do not check out (an addend of
// another dtype, or of more dims than the product).
VarPtr build(const Product& p, const Type& replaces) {
  VarPtr c = p.c ? p.c : scalar(0, p.dtype);
  VarPtr beta = p.c ? (p.beta ? p.beta : scalar(1, p.dtype)) : scalar(0, p.dtype);
  const int rank = p.vector ? 1 : 2;
  if (c->type().dtype != p.dtype || c->type().ndim() > rank || !is_scale(*p.alpha) || !is_scale(*beta))
    return nullptr;
  std::shared_ptr<const Op> op = p.vector ? std::shared_ptr<const Op>(std::make_shared<Gemv>(p.trans_a))
                                          : std::make_shared<Gemm>(p.trans_a, p.trans_b);
  VarPtr out;
  try {
    out = apply1(op, {p.a, p.b, c, p.alpha, beta});
  } catch (const Error&) {
    return nullptr;  // a static shape conflict the elementwise form would also have met at run time
  }
  return interchangeable(replaces, out->type()) ? out : nullptr;
}

std::vector<VarPtr> one(VarPtr v) {
  if (!v) return {};
  return {std::move(v)};
}

// The product read by input `i` of n, when n is its only reader.
std::optional<Product> sole_product(const Node& n, size_t i, const RewriteEnv& env) {
  const Variable& v = *n.inputs()[i];
  if (env.graph.num_uses(&v) != 1) return std::nullopt;
  return as_product(v);
}

// x = c * s or s * c with a 0-d s and a c of rank >= 1: (c, s); else (x, null).
std::pair<VarPtr, VarPtr> split_scale(const VarPtr& x) {
  if (const Node* n = x->owner(); n && elemwise_of(*n, K::Mul)) {
    const VarPtr& l = n->inputs()[0];
    const VarPtr& r = n->inputs()[1];
    if (is_scale(*r) && l->type().ndim() > 0) return {l, r};
    if (is_scale(*l) && r->type().ndim() > 0) return {r, l};
  }
  return {x, nullptr};
}

// Whether v is a product, possibly scaled or negated (what the rules would fold).
bool is_scaled_product(const VarPtr& v) {
  VarPtr inner = split_scale(v).first;
  if (const Node* n = inner->owner(); n && elemwise_of(*n, K::Neg)) inner = n->inputs()[0];
  return as_product(*inner).has_value();
}

// p with `sign` * x added: x becomes the addend when p has none (its scale as beta), else
// the addend becomes x + beta*c (an elementwise node that fusion absorbs) with beta 1 —
// unless x or c is itself a product: the new sum would be folded into that product in
// turn, pushing every term of a long sum of products down a chain of addends (quadratic);
// such a sum stays a sum of Gemms.
std::optional<Product> add_term(Product p, const VarPtr& x, double sign) {
  if (x->type().dtype != p.dtype) return std::nullopt;
  if (p.c && (is_scaled_product(x) || is_scaled_product(p.c))) return std::nullopt;
  if (!p.c) {
    auto [c, s] = split_scale(x);
    if (c->type().dtype != p.dtype) c = x, s = nullptr;  // int c * float s: keep the product
    p.c = c;
    p.beta = mul_scalars(s ? s : scalar(1, p.dtype), scalar(sign, p.dtype), p.dtype);
    return p;
  }
  // x a multiple of the addend itself (an update w - lr * (X^T g + decay * w)): the terms
  // meet in beta, and C stays the variable, which the product may then update in place,
  // instead of an elementwise kernel computing w + beta * w first.
  if (auto [xc, xs] = split_scale(x); xc == p.c) {
    p.beta = add_scalars(p.beta, mul_scalars(xs ? xs : scalar(1, p.dtype), scalar(sign, p.dtype), p.dtype), p.dtype);
    return p;
  }
  VarPtr scaled = is_constant(*p.beta, 1) ? p.c : gradient::mul(p.beta, p.c);
  VarPtr c = sign > 0 ? gradient::add(x, scaled) : gradient::sub(scaled, x);
  if (c->type().dtype != p.dtype) return std::nullopt;
  p.c = c;
  p.beta = scalar(1, p.dtype);
  return p;
}

// --- the rules ---

// A transposed view: x itself when v is x.T, else v.T (a DimShuffle{1,0} view, no copy).
VarPtr transposed(const VarPtr& v) {
  if (VarPtr m = untransposed(*v)) return m;
  return apply1(std::make_shared<DimShuffle>(std::vector<int>{1, 0}), {v});
}

// Gemm(x, y, c, 1, 0) -> dot(x, y); Gemm{transA}(x, y, ..) -> dot(x.T, y); Gemv{transA}(m, v, ..) -> dot(v, m).
// With beta 0 the addend is never read and alpha 1 scales nothing: the Gemm is a plain
// product. Dot reads its operands through their strides (a transpose is a view BLAS takes
// as a flag, on the host and on a GPU), and has no C, alpha or beta to carry (on a GPU:
// no constant transferred for them).
std::vector<VarPtr> gemm_to_dot(Node& n, const RewriteEnv&) {
  const auto* mm = dynamic_cast<const ScaledMatmul*>(&n.op());
  if (!mm || mm->inplace()) return {};
  const auto& in = n.inputs();
  if (!is_constant(*in[ScaledMatmul::kAlpha], 1) || !is_constant(*in[ScaledMatmul::kBeta], 0)) return {};
  // Unread, C still broadcasts into the result's shape: only a C of size-1 dims adds nothing.
  const Type& c = in[ScaledMatmul::kC]->type();
  if (c.ndim() > n.output_raw(0)->type().ndim()) return {};
  for (int64_t d : c.shape)
    if (d != 1) return {};
  VarPtr a, b;
  if (dynamic_cast<const Gemv*>(mm)) {
    // Gemv{transA}(m, v) is m^T v = dot(v, m): no transpose node needed.
    if (mm->trans_a()) a = in[ScaledMatmul::kB], b = in[ScaledMatmul::kA];
    else a = in[ScaledMatmul::kA], b = in[ScaledMatmul::kB];
  } else {
    a = mm->trans_a() ? transposed(in[ScaledMatmul::kA]) : in[ScaledMatmul::kA];
    b = mm->trans_b() ? transposed(in[ScaledMatmul::kB]) : in[ScaledMatmul::kB];
  }
  VarPtr out;
  try {
    out = apply1(std::make_shared<Dot>(), {a, b});
  } catch (const Error&) {
    return {};
  }
  if (!interchangeable(n.output_raw(0)->type(), out->type())) return {};
  return {out};
}

// gemm(x.T, y, ...) -> Gemm{transA}(x, y, ...): a transpose an earlier rule left as an operand
std::vector<VarPtr> gemm_transpose_to_flags(Node& n, const RewriteEnv&) {
  const auto* mm = dynamic_cast<const ScaledMatmul*>(&n.op());
  if (!mm || mm->inplace()) return {};
  bool vector = dynamic_cast<const Gemv*>(mm) != nullptr;
  std::vector<VarPtr> in = n.inputs();
  bool ta = mm->trans_a(), tb = mm->trans_b(), changed = false;
  if (VarPtr m = untransposed(*in[ScaledMatmul::kA])) in[ScaledMatmul::kA] = m, ta = !ta, changed = true;
  if (!vector)
    if (VarPtr m = untransposed(*in[ScaledMatmul::kB])) in[ScaledMatmul::kB] = m, tb = !tb, changed = true;
  if (!changed) return {};
  return {apply1(mm->with(ta, tb, false), std::move(in))};
}

// dot(x, y) * a -> Gemm(x, y, 0, a, 0); a * gemm(.., alpha, beta) -> gemm(.., a*alpha, a*beta); -gemm likewise
std::vector<VarPtr> scaled_dot(Node& n, const RewriteEnv& env) {
  VarPtr factor;
  std::optional<Product> p;
  if (elemwise_of(n, K::Mul)) {
    for (size_t i = 0; i < 2 && !p; ++i) {
      if (!is_scale(*n.inputs()[1 - i])) continue;
      if ((p = sole_product(n, i, env))) factor = n.inputs()[1 - i];
    }
  } else if (elemwise_of(n, K::Neg)) {
    if ((p = sole_product(n, 0, env))) factor = scalar(-1, p->dtype);
  }
  if (!p) return {};
  p->alpha = mul_scalars(p->alpha, factor, p->dtype);
  if (p->c) p->beta = mul_scalars(p->beta, factor, p->dtype);
  return one(build(*p, n.output_raw(0)->type()));
}

// dot(x, y) + c -> Gemm(x, y, c, 1, 1), c + dot(x, y) likewise; c * b + dot -> Gemm(.., c, 1, b)
std::vector<VarPtr> add_dot(Node& n, const RewriteEnv& env) {
  if (!elemwise_of(n, K::Add)) return {};
  for (size_t i = 0; i < 2; ++i) {
    auto p = sole_product(n, i, env);
    if (!p) continue;
    auto q = add_term(*p, n.inputs()[1 - i], +1);
    if (!q) continue;
    if (VarPtr out = build(*q, n.output_raw(0)->type())) return {out};
  }
  return {};
}

// c - dot(x, y) -> Gemm(x, y, c, -1, 1); dot(x, y) - c -> Gemm(x, y, c, 1, -1)
std::vector<VarPtr> sub_dot(Node& n, const RewriteEnv& env) {
  if (!elemwise_of(n, K::Sub)) return {};
  if (auto p = sole_product(n, 1, env)) {  // c - alpha*P: negate the product, add c
    Product neg = *p;
    neg.alpha = mul_scalars(p->alpha, scalar(-1, p->dtype), p->dtype);
    if (neg.c) neg.beta = mul_scalars(p->beta, scalar(-1, p->dtype), p->dtype);
    if (auto q = add_term(neg, n.inputs()[0], +1))
      if (VarPtr out = build(*q, n.output_raw(0)->type())) return {out};
  }
  if (auto p = sole_product(n, 0, env)) {
    if (auto q = add_term(*p, n.inputs()[1], -1))
      if (VarPtr out = build(*q, n.output_raw(0)->type())) return {out};
  }
  return {};
}

// sum(x * y) -> dot(x, y) for float vectors of one dtype whose lengths are provably equal
std::vector<VarPtr> sum_mul_to_dot(Node& n, const RewriteEnv& env) {
  const auto* red = dynamic_cast<const CAReduce*>(&n.op());
  if (!red || red->kind() != ReduceKind::Sum || red->keepdims()) return {};
  const VarPtr& prod = n.inputs()[0];
  if (prod->type().ndim() != 1 || !prod->owner() || !elemwise_of(*prod->owner(), K::Mul)) return {};
  if (env.graph.num_uses(prod.get()) != 1) return {};
  const VarPtr& x = prod->owner()->inputs()[0];
  const VarPtr& y = prod->owner()->inputs()[1];
  const DType dtype = prod->type().dtype;
  if (red->axes() || !blas_dtype(dtype) || x->type().dtype != dtype || y->type().dtype != dtype ||
      x->type().ndim() != 1 || y->type().ndim() != 1)
    return {};
  // An unknown length may be 1 at run time and broadcast, which dot would reject.
  if (x != y && !env.shapes.same_shape(*x, *y)) return {};
  VarPtr out = apply1(std::make_shared<Dot>(), {x, y});
  if (!interchangeable(n.output_raw(0)->type(), out->type())) return {};
  return {out};
}

// Fill is an op of its own, which fusion cannot take into a kernel; where(true, v, like)
// computes the same values (like's are never chosen, so its NaNs do not leak) as an
// elementwise op (Theano's fill is Elemwise{second} for this reason). Canonicalize has run:
// the fills still here are the ones its rules could not prove useless.
std::vector<VarPtr> fill_to_elemwise(Node& n, const RewriteEnv& env) {
  if (!dynamic_cast<const Fill*>(&n.op())) return {};
  VarPtr like = n.inputs()[0];
  const VarPtr& v = n.inputs()[1];
  const DType dtype = v->type().dtype;
  if (like->type().dtype != dtype) {  // where promotes its branches: keep v's dtype
    if (like->kind() == Variable::Kind::Constant)  // its values are never read: cast now
      like = Variable::constant(like->constant_value().astype(dtype));
    else
      like = apply1(std::make_shared<Elemwise>(K::Cast, dtype, env.ctx.config.floatX), {like});
  }
  VarPtr yes = Variable::constant(Tensor::full(DType::Bool, Shape{}, 1.0));
  VarPtr out = apply1(std::make_shared<Elemwise>(K::Where, std::nullopt, env.ctx.config.floatX), {yes, v, like});
  if (!interchangeable(n.output_raw(0)->type(), out->type())) return {};
  return {out};
}

}  // namespace

std::span<const LocalRewrite> specialize_rules() {
  // Every rule fires for float32/float64 operands of one dtype only, and folds a product into
  // a bigger one only when that product has no other reader.
  static const LocalRewrite rules[] = {
      {"gemm_transpose_to_flags", "gemm(x.T, y, c, a, b) -> Gemm{transA}(x, y, c, a, b)", &gemm_transpose_to_flags},
      {"scaled_dot", "dot(x, y) * a -> Gemm(x, y, 0, a, 0); a * gemm(.., al, be) -> gemm(.., a*al, a*be)", &scaled_dot},
      {"add_dot", "dot(x, y) + c * b -> Gemm(x, y, c, 1, b); gemm(.., c, al, be) + d -> gemm(.., d + be*c, al, 1); gemm(.., c, al, be) + s*c -> gemm(.., c, al, be + s)", &add_dot},
      {"sub_dot", "c - dot(x, y) -> Gemm(x, y, c, -1, 1); dot(x, y) - c -> Gemm(x, y, c, 1, -1)", &sub_dot},
      // Saves the temporary x * y; BLAS's dot accumulates in the operand type (as NumPy's
      // dot does) where the sum accumulated float32 in double: the last bits may differ.
      {"sum_mul_to_dot", "sum(x * y) -> dot(x, y) (float vectors of provably equal length)", &sum_mul_to_dot},
      // A plain product stays (or becomes) a Dot: no zero C, no constants alpha and beta.
      {"gemm_to_dot", "Gemm(x, y, 0, 1, 0) -> dot(x, y); Gemm{transB}(x, y, 0, 1, 0) -> dot(x, y.T)", &gemm_to_dot},
      {"fill_to_elemwise", "fill(like, v) -> where(true, v, like): fusable into a kernel", &fill_to_elemwise},
  };
  return rules;
}

bool specialize(Graph& graph, const PassContext& ctx) {
  return rewrite_to_fixed_point(graph, specialize_rules(), "specialize", ctx);
}

}  // namespace tgc
