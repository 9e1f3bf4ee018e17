// The derivative rules of the scalar-op table, written with the graph-building helpers of
// ops/gradient/build.h so each reads like its math. x, y, z name the operands, o the
// output and g the output's gradient; every returned term involves g, so it has (at least)
// the output's broadcast shape, which Elemwise::grad sums back to each input's shape.
#include "ops/elemwise/scalar_grad.h"

#include <numbers>

#include "ops/gradient/build.h"

namespace tgc::scalar_grad {

namespace {

using K = ScalarOpKind;
using gradient::add;
using gradient::div;
using gradient::ew;
using gradient::mul;
using gradient::neg;
using gradient::sub;

// A 0-d constant of like's dtype.
VarPtr c(double value, const VarPtr& like) { return gradient::scalar_like(value, like); }
VarPtr f(K kind, const VarPtr& a) { return ew(kind, {a}); }
VarPtr f(K kind, const VarPtr& a, const VarPtr& b) { return ew(kind, {a, b}); }
VarPtr sq(const VarPtr& a) { return mul(a, a); }
// g where `mask` holds, 0 elsewhere; and the converse.
VarPtr where_g(const VarPtr& mask, const VarPtr& g) { return ew(K::Where, {mask, g, c(0, g)}); }
VarPtr where_not_g(const VarPtr& mask, const VarPtr& g) { return ew(K::Where, {mask, c(0, g), g}); }

}  // namespace

#define DEFINE_GRAD(name)                                                      \
  std::vector<VarPtr> name([[maybe_unused]] const std::vector<VarPtr>& inputs, \
                           [[maybe_unused]] const VarPtr& o, [[maybe_unused]] const VarPtr& g)

// ---- Arithmetic.

DEFINE_GRAD(add) { return {g, g}; }
DEFINE_GRAD(sub) { return {g, neg(g)}; }
DEFINE_GRAD(mul) { return {mul(g, inputs[1]), mul(g, inputs[0])}; }
// d(x/y)/dy = -x/y^2 = -o/y.
DEFINE_GRAD(true_div) {
  const VarPtr& y = inputs[1];
  return {div(g, y), neg(mul(g, div(o, y)))};
}
// x mod y = x - y*floor(x/y): d/dx = 1, d/dy = -floor(x/y) (away from the jumps).
DEFINE_GRAD(mod) { return {g, neg(mul(g, f(K::FloorDiv, inputs[0], inputs[1])))}; }
// d(x^y)/dx = y x^(y-1); d(x^y)/dy = x^y log x, taken as 0 at x == 0 (where x^y is 0 for
// y > 0 and log x is -inf), as Theano/PyTensor do. Negative x gives NaN for d/dy: x^y
// is real there only at integer y, not in a neighbourhood of it.
DEFINE_GRAD(pow) {
  const VarPtr &x = inputs[0], &y = inputs[1];
  VarPtr gx = mul(g, mul(y, f(K::Pow, x, sub(y, c(1, y)))));
  VarPtr gy = ew(K::Where, {f(K::Eq, x, c(0, x)), c(0, g), mul(g, mul(o, f(K::Log, x)))});
  return {gx, gy};
}
DEFINE_GRAD(neg) { return {neg(g)}; }
// sign(0) = 0: the subgradient 0 at the kink, as Theano.
DEFINE_GRAD(abs) { return {mul(g, f(K::Sign, inputs[0]))}; }

// ---- Exponentials and logarithms.

DEFINE_GRAD(exp) { return {mul(g, o)}; }
DEFINE_GRAD(exp2) { return {mul(g, mul(o, c(std::numbers::ln2, o)))}; }
DEFINE_GRAD(expm1) { return {mul(g, add(o, c(1, o)))}; }
DEFINE_GRAD(log) { return {div(g, inputs[0])}; }
DEFINE_GRAD(log2) {
  const VarPtr& x = inputs[0];
  return {div(g, mul(x, c(std::numbers::ln2, x)))};
}
DEFINE_GRAD(log10) {
  const VarPtr& x = inputs[0];
  return {div(g, mul(x, c(std::numbers::ln10, x)))};
}
DEFINE_GRAD(log1p) {
  const VarPtr& x = inputs[0];
  return {div(g, add(x, c(1, x)))};
}
// d sqrt(x) = 1 / (2 sqrt(x)).
DEFINE_GRAD(sqrt) { return {div(g, mul(o, c(2, o)))}; }
// d x^(-1/2) = -1/2 x^(-3/2) = -o^3 / 2.
DEFINE_GRAD(rsqrt) { return {mul(g, mul(c(-0.5, o), mul(o, sq(o))))}; }
DEFINE_GRAD(square) {
  const VarPtr& x = inputs[0];
  return {mul(g, mul(x, c(2, x)))};
}

// ---- Trigonometric and hyperbolic functions.

DEFINE_GRAD(sin) { return {mul(g, f(K::Cos, inputs[0]))}; }
DEFINE_GRAD(cos) { return {neg(mul(g, f(K::Sin, inputs[0])))}; }
DEFINE_GRAD(tan) { return {mul(g, add(c(1, o), sq(o)))}; }   // 1 + tan^2
DEFINE_GRAD(tanh) { return {mul(g, sub(c(1, o), sq(o)))}; }  // 1 - tanh^2
DEFINE_GRAD(sinh) { return {mul(g, f(K::Cosh, inputs[0]))}; }
DEFINE_GRAD(cosh) { return {mul(g, f(K::Sinh, inputs[0]))}; }
// d arcsin x = 1 / sqrt(1 - x^2) = -d arccos x.
DEFINE_GRAD(arcsin) {
  const VarPtr& x = inputs[0];
  return {mul(g, f(K::Rsqrt, sub(c(1, x), sq(x))))};
}
DEFINE_GRAD(arccos) {
  const VarPtr& x = inputs[0];
  return {neg(mul(g, f(K::Rsqrt, sub(c(1, x), sq(x)))))};
}
DEFINE_GRAD(arctan) {
  const VarPtr& x = inputs[0];
  return {div(g, add(c(1, x), sq(x)))};
}
// arctan2(y, x): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2).
DEFINE_GRAD(arctan2) {
  const VarPtr &y = inputs[0], &x = inputs[1];
  VarPtr g_over_r2 = div(g, add(sq(x), sq(y)));
  return {mul(g_over_r2, x), neg(mul(g_over_r2, y))};
}

// ---- Special functions.

// d erf x = 2/sqrt(pi) exp(-x^2) = -d erfc x.
DEFINE_GRAD(erf) {
  const VarPtr& x = inputs[0];
  return {mul(g, mul(c(std::numbers::inv_sqrtpi * 2, x), f(K::Exp, neg(sq(x)))))};
}
DEFINE_GRAD(erfc) {
  const VarPtr& x = inputs[0];
  return {mul(g, mul(c(-std::numbers::inv_sqrtpi * 2, x), f(K::Exp, neg(sq(x)))))};
}
DEFINE_GRAD(sigmoid) { return {mul(g, mul(o, sub(c(1, o), o)))}; }
DEFINE_GRAD(softplus) { return {mul(g, f(K::Sigmoid, inputs[0]))}; }

// ---- Selection.

// clip(x, lo, hi) = minimum(maximum(x, lo), hi): exactly one operand is selected and takes
// the whole gradient — x where lo <= x <= hi (Theano's rule, bounds included), lo where
// x < lo <= hi, hi everywhere else (x > hi, or lo > hi, where the result is hi).
DEFINE_GRAD(clip) {
  const VarPtr &x = inputs[0], &lo = inputs[1], &hi = inputs[2];
  VarPtr to_x = f(K::LogicalAnd, f(K::Ge, x, lo), f(K::Le, x, hi));
  VarPtr to_lo = f(K::LogicalAnd, f(K::Lt, x, lo), f(K::Le, lo, hi));
  VarPtr to_hi = f(K::LogicalNot, f(K::LogicalOr, to_x, to_lo));
  return {where_g(to_x, g), where_g(to_lo, g), where_g(to_hi, g)};
}
// The gradient goes to the selected operand; at ties to the first, as the forward
// function picks it (maximum(a, b) is a when a >= b).
DEFINE_GRAD(maximum) {
  VarPtr first = f(K::Ge, inputs[0], inputs[1]);
  return {where_g(first, g), where_not_g(first, g)};
}
DEFINE_GRAD(minimum) {
  VarPtr first = f(K::Le, inputs[0], inputs[1]);
  return {where_g(first, g), where_not_g(first, g)};
}
// where(cond, a, b): to a where cond holds, to b elsewhere; the condition has none.
DEFINE_GRAD(where) {
  const VarPtr& cond = inputs[0];
  return {nullptr, where_g(cond, g), where_not_g(cond, g)};
}
// The gradient converted back to the input's dtype (Elemwise::grad's sum_to_like casts).
// A cast to an integer or bool type is piecewise constant: zero gradient, as Theano.
DEFINE_GRAD(cast) {
  if (!is_float(o->type().dtype)) return {gradient::zeros_like(inputs[0])};
  return {g};
}

#undef DEFINE_GRAD

}  // namespace tgc::scalar_grad
