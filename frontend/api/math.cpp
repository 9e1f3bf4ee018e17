// Frontend API: elementwise math. Each function types its literals weakly against the Vars
// it meets and builds one Elemwise node.
#include <fmt/format.h>
#include <tgc/math.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "ops/core/apply.h"
#include "ops/elemwise/elemwise.h"

namespace tgc {

namespace {

using K = ScalarOpKind;

// How a literal is used, which decides its dtype (see Operand in tgc/math.h).
enum class LiteralUse { Arithmetic, Comparison, Logical };

// Whether integral `v` is a value of integer type `t`.
bool fits(double v, DType t) {
  return dispatch_dtype(t, [&]<typename T>() {
    // max+1 is a power of two, exact in double (int64's max itself is not).
    return v >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
           v < static_cast<double>(std::numeric_limits<T>::max()) + 1.0;
  });
}

// The smallest signed integer type that holds an integral value, if any.
std::optional<DType> smallest_int(double v) {
  for (DType t : {DType::Int8, DType::Int16, DType::Int32, DType::Int64})
    if (fits(v, t)) return t;
  return std::nullopt;
}

DType literal_dtype(double v, DType other, LiteralUse use) {
  if (use == LiteralUse::Logical) return DType::Bool;
  if (is_float(other)) return other;
  const bool integral = std::isfinite(v) && std::trunc(v) == v;
  std::optional<DType> small = integral ? smallest_int(v) : std::nullopt;
  if (other == DType::Bool) {
    if (use == LiteralUse::Comparison && (v == 0 || v == 1)) return DType::Bool;
  } else if (integral && fits(v, other)) {
    return other;
  }
  if (small) return *small;
  return use == LiteralUse::Comparison ? DType::Float64 : floatX();
}

// Turns operands into Vars: literals become constants typed against the promotion of the
// Var operands (`skip` marks operands that do not take part, such as where's condition).
std::vector<Var> resolve(std::initializer_list<const Operand*> operands, LiteralUse use,
                         std::initializer_list<size_t> skip = {}) {
  std::optional<DType> strong;
  size_t i = 0;
  for (const Operand* o : operands) {
    bool skipped = std::find(skip.begin(), skip.end(), i++) != skip.end();
    if (o->is_literal() || skipped || !o->var().defined()) continue;
    strong = strong ? promote(*strong, o->var().dtype()) : o->var().dtype();
  }
  std::vector<Var> out;
  i = 0;
  for (const Operand* o : operands) {
    bool skipped = std::find(skip.begin(), skip.end(), i++) != skip.end();
    if (!o->is_literal()) {
      out.push_back(o->var());
    } else if (skipped) {
      out.push_back(constant(o->value(), DType::Bool));
    } else {
      DType t = strong ? literal_dtype(o->value(), *strong, use) : floatX();
      if (use == LiteralUse::Logical) t = DType::Bool;
      out.push_back(constant(o->value(), t));
    }
  }
  return out;
}

Var build(ScalarOpKind kind, const std::vector<Var>& inputs) {
  return Var(apply1(std::make_shared<Elemwise>(kind, std::nullopt, floatX()), to_ptrs(inputs)));
}

Var unary(ScalarOpKind kind, const Var& x) { return build(kind, {x}); }

Var binary(ScalarOpKind kind, const Operand& a, const Operand& b,
           LiteralUse use = LiteralUse::Arithmetic) {
  return build(kind, resolve({&a, &b}, use));
}

// & | ^ ! are logical operators on bool tensors; anything else is most likely a mistake
// carried over from NumPy's bitwise meaning.
void require_bool(const char* op, std::initializer_list<const Var*> vars) {
  for (const Var* v : vars) {
    if (!v->defined() || v->dtype() == DType::Bool) continue;
    throw TypeError(fmt::format("operator {} needs bool operands, got {}", op, v->type().str()), "",
                    "& | ^ ! are logical in tgc: compare first (e.g. (x > 0) & m), or call "
                    "logical_and/logical_or/logical_xor/logical_not, which read any dtype "
                    "as true when nonzero");
  }
}

}  // namespace

Var add(const Operand& a, const Operand& b) { return binary(K::Add, a, b); }
Var sub(const Operand& a, const Operand& b) { return binary(K::Sub, a, b); }
Var mul(const Operand& a, const Operand& b) { return binary(K::Mul, a, b); }
Var true_div(const Operand& a, const Operand& b) { return binary(K::TrueDiv, a, b); }
Var floor_div(const Operand& a, const Operand& b) { return binary(K::FloorDiv, a, b); }
Var mod(const Operand& a, const Operand& b) { return binary(K::Mod, a, b); }
Var pow(const Operand& a, const Operand& b) { return binary(K::Pow, a, b); }
Var neg(const Var& x) { return unary(K::Neg, x); }
Var abs(const Var& x) { return unary(K::Abs, x); }
Var sign(const Var& x) { return unary(K::Sign, x); }
Var maximum(const Operand& a, const Operand& b) { return binary(K::Maximum, a, b); }
Var minimum(const Operand& a, const Operand& b) { return binary(K::Minimum, a, b); }
Var clip(const Operand& x, const Operand& lo, const Operand& hi) {
  return build(K::Clip, resolve({&x, &lo, &hi}, LiteralUse::Arithmetic));
}

Var lt(const Operand& a, const Operand& b) { return binary(K::Lt, a, b, LiteralUse::Comparison); }
Var le(const Operand& a, const Operand& b) { return binary(K::Le, a, b, LiteralUse::Comparison); }
Var gt(const Operand& a, const Operand& b) { return binary(K::Gt, a, b, LiteralUse::Comparison); }
Var ge(const Operand& a, const Operand& b) { return binary(K::Ge, a, b, LiteralUse::Comparison); }
Var eq(const Operand& a, const Operand& b) { return binary(K::Eq, a, b, LiteralUse::Comparison); }
Var neq(const Operand& a, const Operand& b) { return binary(K::Neq, a, b, LiteralUse::Comparison); }

Var logical_and(const Operand& a, const Operand& b) {
  return binary(K::LogicalAnd, a, b, LiteralUse::Logical);
}
Var logical_or(const Operand& a, const Operand& b) {
  return binary(K::LogicalOr, a, b, LiteralUse::Logical);
}
Var logical_xor(const Operand& a, const Operand& b) {
  return binary(K::LogicalXor, a, b, LiteralUse::Logical);
}
Var logical_not(const Var& x) { return unary(K::LogicalNot, x); }
Var isnan(const Var& x) { return unary(K::IsNan, x); }
Var isinf(const Var& x) { return unary(K::IsInf, x); }

Var exp(const Var& x) { return unary(K::Exp, x); }
Var exp2(const Var& x) { return unary(K::Exp2, x); }
Var expm1(const Var& x) { return unary(K::Expm1, x); }
Var log(const Var& x) { return unary(K::Log, x); }
Var log2(const Var& x) { return unary(K::Log2, x); }
Var log10(const Var& x) { return unary(K::Log10, x); }
Var log1p(const Var& x) { return unary(K::Log1p, x); }
Var sqrt(const Var& x) { return unary(K::Sqrt, x); }
Var rsqrt(const Var& x) { return unary(K::Rsqrt, x); }
Var square(const Var& x) { return unary(K::Square, x); }
Var sqr(const Var& x) { return square(x); }
Var sin(const Var& x) { return unary(K::Sin, x); }
Var cos(const Var& x) { return unary(K::Cos, x); }
Var tan(const Var& x) { return unary(K::Tan, x); }
Var tanh(const Var& x) { return unary(K::Tanh, x); }
Var sinh(const Var& x) { return unary(K::Sinh, x); }
Var cosh(const Var& x) { return unary(K::Cosh, x); }
Var arcsin(const Var& x) { return unary(K::Arcsin, x); }
Var arccos(const Var& x) { return unary(K::Arccos, x); }
Var arctan(const Var& x) { return unary(K::Arctan, x); }
Var arctan2(const Operand& y, const Operand& x) { return binary(K::Arctan2, y, x); }
Var erf(const Var& x) { return unary(K::Erf, x); }
Var erfc(const Var& x) { return unary(K::Erfc, x); }
Var sigmoid(const Var& x) { return unary(K::Sigmoid, x); }
Var softplus(const Var& x) { return unary(K::Softplus, x); }
Var floor(const Var& x) { return unary(K::Floor, x); }
Var ceil(const Var& x) { return unary(K::Ceil, x); }
Var round(const Var& x) { return unary(K::Round, x); }
Var trunc(const Var& x) { return unary(K::Trunc, x); }

Var where(const Operand& cond, const Operand& a, const Operand& b) {
  // The condition is read as bool and does not take part in typing the branches.
  return build(K::Where, resolve({&cond, &a, &b}, LiteralUse::Arithmetic, {0}));
}
Var switch_(const Operand& cond, const Operand& a, const Operand& b) { return where(cond, a, b); }

Var cast(const Var& x, DType dtype) {
  if (x.defined() && x.dtype() == dtype) return x;
  return Var(apply1(std::make_shared<Elemwise>(K::Cast, dtype, floatX()), {checked_ptr(x)}));
}

Var Var::astype(DType dtype) const { return cast(*this, dtype); }

// Operators: each forwards to its function; a double on either side is a weak literal.
#define TGC_BINARY_OPERATOR(op, fn)                                \
  Var operator op(const Var& a, const Var& b) { return fn(a, b); } \
  Var operator op(const Var& a, double b) { return fn(a, b); }     \
  Var operator op(double a, const Var& b) { return fn(a, b); }
TGC_BINARY_OPERATOR(+, add)
TGC_BINARY_OPERATOR(-, sub)
TGC_BINARY_OPERATOR(*, mul)
TGC_BINARY_OPERATOR(/, true_div)
TGC_BINARY_OPERATOR(%, mod)
TGC_BINARY_OPERATOR(<, lt)
TGC_BINARY_OPERATOR(<=, le)
TGC_BINARY_OPERATOR(>, gt)
TGC_BINARY_OPERATOR(>=, ge)
#undef TGC_BINARY_OPERATOR

#define TGC_LOGICAL_OPERATOR(op, fn)            \
  Var operator op(const Var& a, const Var& b) { \
    require_bool(#op, {&a, &b});                \
    return fn(a, b);                            \
  }                                             \
  Var operator op(const Var& a, double b) {     \
    require_bool(#op, {&a});                    \
    return fn(a, b);                            \
  }                                             \
  Var operator op(double a, const Var& b) {     \
    require_bool(#op, {&b});                    \
    return fn(a, b);                            \
  }
TGC_LOGICAL_OPERATOR(&, logical_and)
TGC_LOGICAL_OPERATOR(|, logical_or)
TGC_LOGICAL_OPERATOR(^, logical_xor)
#undef TGC_LOGICAL_OPERATOR

Var operator-(const Var& x) { return neg(x); }
Var operator!(const Var& x) {
  require_bool("!", {&x});
  return logical_not(x);
}

}  // namespace tgc
