// The scalar-op table and its type rules. Each row carries the op's reference functions as
// lambdas (the array forms Elemwise runs are generated from them at compile time) and its
// derivative rule from ops/elemwise/scalar_grad.cpp.
#include "ops/elemwise/scalar_op.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "ops/elemwise/scalar_grad.h"
#include "runtime/error.h"

namespace tgc {

namespace {

// ---- Integer helpers: int64 arithmetic that wraps (two's complement, like NumPy) instead
// of overflowing, and Python's floor division / modulo.

int64_t wrap_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t wrap_sub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
int64_t wrap_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
int64_t wrap_neg(int64_t a) { return wrap_sub(0, a); }
int64_t wrap_abs(int64_t a) { return a < 0 ? wrap_neg(a) : a; }

[[noreturn]] void throw_int_div_by_zero(const char* op) {
  throw ValueError(fmt::format("{}: integer division by zero", op), "",
                   "an integer divisor is 0; guard it (e.g. where(eq(b, 0), 1, b)) or divide "
                   "in floats (cast to float32 first) to get inf/nan instead");
}

int64_t int_floor_div(int64_t a, int64_t b) {
  if (b == 0) throw_int_div_by_zero("floor_div");
  if (b == -1) return wrap_neg(a);  // INT64_MIN / -1 would trap; NumPy wraps
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t int_mod(int64_t a, int64_t b) {
  if (b == 0) throw_int_div_by_zero("mod");
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;  // the result takes the divisor's sign
  return r;
}

int64_t int_pow(int64_t base, int64_t exponent) {
  if (exponent < 0)
    throw ValueError(fmt::format("pow: integers to negative integer powers are not allowed "
                                 "(exponent {})", exponent),
                     "", "cast the base to a float type first (x.astype(float32)) to get a "
                         "fractional result, as NumPy asks");
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  for (uint64_t e = static_cast<uint64_t>(exponent); e != 0; e >>= 1) {
    if (e & 1) result *= b;
    b *= b;
  }
  return static_cast<int64_t>(result);
}

// ---- Float helpers with NumPy's semantics.

// Python/NumPy floor division: floor(a / b) computed from fmod so that a == b*q + mod holds.
double float_floor_div(double a, double b) {
  if (b == 0) return a / b;  // inf, -inf or nan, as NumPy
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1.0;
  if (div == 0) return std::copysign(0.0, a / b);
  double q = std::floor(div);
  if (div - q > 0.5) q += 1.0;  // (a - mod) / b is integral up to rounding
  return q;
}

// Python/NumPy modulo: the result has the divisor's sign.
double float_mod(double a, double b) {
  if (b == 0) return std::fmod(a, b);  // nan
  double mod = std::fmod(a, b);
  if (mod == 0) return std::copysign(0.0, b);
  if ((b < 0) != (mod < 0)) mod += b;
  return mod;
}

// NaN-propagating maximum/minimum (NumPy's maximum, not fmax).
double float_max(double a, double b) { return (a >= b || std::isnan(a)) ? a : b; }
double float_min(double a, double b) { return (a <= b || std::isnan(a)) ? a : b; }

double float_sign(double a) {
  if (std::isnan(a)) return a;
  return a > 0 ? 1.0 : (a < 0 ? -1.0 : 0.0);
}

// Stable for large |x|: never evaluates exp of a large positive number.
double sigmoid(double x) {
  if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
  double e = std::exp(x);  // NaN lands here and stays NaN
  return e / (1.0 + e);
}

// log(1 + exp(x)) without overflow: x + log1p(exp(-x)) for positive x.
double softplus(double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }

// ---- Row construction. FLOAT(expr)/INT(expr) make the reference function of a row from
// an expression in a, b, c (the operands; those past the arity are 0).

template <FloatFn F>
void float_array(const double* a, const double* b, const double* c, double* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = F(a[i], b[i], c[i]);
}
template <IntFn F>
void int_array(const int64_t* a, const int64_t* b, const int64_t* c, int64_t* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = F(a[i], b[i], c[i]);
}

template <FloatFn F, IntFn I = nullptr>
constexpr ScalarOpInfo row(ScalarOpKind kind, std::string_view name, int arity, TypeRule rule,
                           ScalarGradFn grad, BoolInputs bools = BoolInputs::Keep,
                           std::string_view bool_hint = "") {
  IntArrayFn int_arr = nullptr;
  if constexpr (I != nullptr) int_arr = &int_array<I>;
  return ScalarOpInfo{kind, name, arity, rule, bools, bool_hint, F,
                      I, &float_array<F>, int_arr, grad};
}

#define FLOAT(expr)                                                                   \
  +[]([[maybe_unused]] double a, [[maybe_unused]] double b, [[maybe_unused]] double c) \
      -> double { return (expr); }
#define INT(expr)                                                                        \
  +[]([[maybe_unused]] int64_t a, [[maybe_unused]] int64_t b, [[maybe_unused]] int64_t c) \
      -> int64_t { return (expr); }

using K = ScalarOpKind;
constexpr TypeRule kPromote = TypeRule::Promote;
constexpr TypeRule kFloat = TypeRule::FloatResult;
constexpr TypeRule kBool = TypeRule::Bool;
constexpr BoolInputs kToInt8 = BoolInputs::ToInt8;
constexpr BoolInputs kReject = BoolInputs::Reject;
// Derivative rules: &dx::exp; piecewise-constant rows have zero gradient (ScalarOpInfo::grad).
namespace dx = scalar_grad;
constexpr ScalarGradFn kNoGrad = nullptr;

// The table, in ScalarOpKind order (checked below).
constexpr std::array kTable = {
    row<FLOAT(a + b), INT(wrap_add(a, b))>(K::Add, "add", 2, kPromote, &dx::add),
    row<FLOAT(a - b), INT(wrap_sub(a, b))>(
        K::Sub, "sub", 2, kPromote, &dx::sub, kReject,
        "'-' on two bool operands is not defined (as in NumPy); use logical_xor (^) for "
        "booleans, or cast them to an integer type first"),
    row<FLOAT(a* b), INT(wrap_mul(a, b))>(K::Mul, "mul", 2, kPromote, &dx::mul),
    row<FLOAT(a / b)>(K::TrueDiv, "true_div", 2, kFloat, &dx::true_div),
    row<FLOAT(float_floor_div(a, b)), INT(int_floor_div(a, b))>(K::FloorDiv, "floor_div", 2,
                                                                kPromote, kNoGrad, kToInt8),
    row<FLOAT(float_mod(a, b)), INT(int_mod(a, b))>(K::Mod, "mod", 2, kPromote, &dx::mod, kToInt8),
    row<FLOAT(std::pow(a, b)), INT(int_pow(a, b))>(K::Pow, "pow", 2, kPromote, &dx::pow, kToInt8),
    row<FLOAT(-a), INT(wrap_neg(a))>(
        K::Neg, "neg", 1, kPromote, &dx::neg, kReject,
        "unary '-' of a bool tensor is not defined (as in NumPy); use logical_not (!) "
        "instead, or cast to an integer type first"),
    row<FLOAT(std::fabs(a)), INT(wrap_abs(a))>(K::Abs, "abs", 1, kPromote, &dx::abs),
    row<FLOAT(float_sign(a)), INT((a > 0) - (a < 0))>(
        K::Sign, "sign", 1, kPromote, kNoGrad, kReject,
        "sign of a bool tensor is not defined (as in NumPy); cast it to int8 first"),

    row<FLOAT(a < b), INT(a < b)>(K::Lt, "lt", 2, kBool, kNoGrad),
    row<FLOAT(a <= b), INT(a <= b)>(K::Le, "le", 2, kBool, kNoGrad),
    row<FLOAT(a > b), INT(a > b)>(K::Gt, "gt", 2, kBool, kNoGrad),
    row<FLOAT(a >= b), INT(a >= b)>(K::Ge, "ge", 2, kBool, kNoGrad),
    row<FLOAT(a == b), INT(a == b)>(K::Eq, "eq", 2, kBool, kNoGrad),
    row<FLOAT(a != b), INT(a != b)>(K::Neq, "neq", 2, kBool, kNoGrad),

    row<FLOAT(a != 0 && b != 0), INT(a != 0 && b != 0)>(K::LogicalAnd, "logical_and", 2, kBool,
                                                        kNoGrad),
    row<FLOAT(a != 0 || b != 0), INT(a != 0 || b != 0)>(K::LogicalOr, "logical_or", 2, kBool,
                                                        kNoGrad),
    row<FLOAT((a != 0) != (b != 0)), INT((a != 0) != (b != 0))>(K::LogicalXor, "logical_xor", 2,
                                                                kBool, kNoGrad),
    row<FLOAT(a == 0), INT(a == 0)>(K::LogicalNot, "logical_not", 1, kBool, kNoGrad),

    row<FLOAT(std::exp(a))>(K::Exp, "exp", 1, kFloat, &dx::exp),
    row<FLOAT(std::exp2(a))>(K::Exp2, "exp2", 1, kFloat, &dx::exp2),
    row<FLOAT(std::expm1(a))>(K::Expm1, "expm1", 1, kFloat, &dx::expm1),
    row<FLOAT(std::log(a))>(K::Log, "log", 1, kFloat, &dx::log),
    row<FLOAT(std::log2(a))>(K::Log2, "log2", 1, kFloat, &dx::log2),
    row<FLOAT(std::log10(a))>(K::Log10, "log10", 1, kFloat, &dx::log10),
    row<FLOAT(std::log1p(a))>(K::Log1p, "log1p", 1, kFloat, &dx::log1p),
    row<FLOAT(std::sqrt(a))>(K::Sqrt, "sqrt", 1, kFloat, &dx::sqrt),
    row<FLOAT(1.0 / std::sqrt(a))>(K::Rsqrt, "rsqrt", 1, kFloat, &dx::rsqrt),
    row<FLOAT(a * a), INT(wrap_mul(a, a))>(K::Square, "square", 1, kPromote, &dx::square, kToInt8),
    row<FLOAT(std::sin(a))>(K::Sin, "sin", 1, kFloat, &dx::sin),
    row<FLOAT(std::cos(a))>(K::Cos, "cos", 1, kFloat, &dx::cos),
    row<FLOAT(std::tan(a))>(K::Tan, "tan", 1, kFloat, &dx::tan),
    row<FLOAT(std::tanh(a))>(K::Tanh, "tanh", 1, kFloat, &dx::tanh),
    row<FLOAT(std::sinh(a))>(K::Sinh, "sinh", 1, kFloat, &dx::sinh),
    row<FLOAT(std::cosh(a))>(K::Cosh, "cosh", 1, kFloat, &dx::cosh),
    row<FLOAT(std::asin(a))>(K::Arcsin, "arcsin", 1, kFloat, &dx::arcsin),
    row<FLOAT(std::acos(a))>(K::Arccos, "arccos", 1, kFloat, &dx::arccos),
    row<FLOAT(std::atan(a))>(K::Arctan, "arctan", 1, kFloat, &dx::arctan),
    row<FLOAT(std::atan2(a, b))>(K::Arctan2, "arctan2", 2, kFloat, &dx::arctan2),
    row<FLOAT(std::erf(a))>(K::Erf, "erf", 1, kFloat, &dx::erf),
    row<FLOAT(std::erfc(a))>(K::Erfc, "erfc", 1, kFloat, &dx::erfc),
    row<FLOAT(sigmoid(a))>(K::Sigmoid, "sigmoid", 1, kFloat, &dx::sigmoid),
    row<FLOAT(softplus(a))>(K::Softplus, "softplus", 1, kFloat, &dx::softplus),
    // floor/ceil/trunc of integers give floats, as NumPy's; round keeps integers (np.round).
    row<FLOAT(std::floor(a))>(K::Floor, "floor", 1, kFloat, kNoGrad),
    row<FLOAT(std::ceil(a))>(K::Ceil, "ceil", 1, kFloat, kNoGrad),
    // nearbyint in the default rounding mode rounds half to even, like np.round.
    row<FLOAT(std::nearbyint(a)), INT(a)>(K::Round, "round", 1, kPromote, kNoGrad, kToInt8),
    row<FLOAT(std::trunc(a))>(K::Trunc, "trunc", 1, kFloat, kNoGrad),
    // clip(x, lo, hi) = minimum(maximum(x, lo), hi), as NumPy (lo > hi gives hi; NaN stays).
    row<FLOAT(float_min(float_max(a, b), c)), INT(std::min(std::max(a, b), c))>(
        K::Clip, "clip", 3, kPromote, &dx::clip),
    row<FLOAT(float_max(a, b)), INT(std::max(a, b))>(K::Maximum, "maximum", 2, kPromote,
                                                     &dx::maximum),
    row<FLOAT(float_min(a, b)), INT(std::min(a, b))>(K::Minimum, "minimum", 2, kPromote,
                                                     &dx::minimum),

    row<FLOAT(a != 0 ? b : c), INT(a != 0 ? b : c)>(K::Where, "where", 3, TypeRule::Where,
                                                    &dx::where),
    // The conversion itself happens when the result is stored in the target dtype.
    row<FLOAT(a), INT(a)>(K::Cast, "cast", 1, TypeRule::Cast, &dx::cast),
    row<FLOAT(std::isnan(a))>(K::IsNan, "isnan", 1, kBool, kNoGrad),
    row<FLOAT(std::isinf(a))>(K::IsInf, "isinf", 1, kBool, kNoGrad),
};

#undef FLOAT
#undef INT

constexpr bool table_in_kind_order() {
  for (size_t i = 0; i < kTable.size(); ++i)
    if (static_cast<size_t>(kTable[i].kind) != i) return false;
  return kTable.back().kind == ScalarOpKind::IsInf;  // the last enumerator
}
static_assert(table_in_kind_order(), "kTable rows must follow ScalarOpKind order, one each");

std::string dtypes_str(std::span<const DType> dtypes) {
  std::string out;
  for (size_t i = 0; i < dtypes.size(); ++i)
    out += (i ? ", " : "") + std::string(dtype_name(dtypes[i]));
  return out;
}

DType promote_all(std::span<const DType> dtypes) {
  DType p = dtypes[0];
  for (DType t : dtypes.subspan(1)) p = promote(p, t);
  return p;
}

}  // namespace

std::span<const ScalarOpInfo> scalar_op_table() { return kTable; }

const ScalarOpInfo& scalar_op_info(ScalarOpKind kind) {
  return kTable[static_cast<size_t>(kind)];
}

std::string_view scalar_op_name(ScalarOpKind kind) { return scalar_op_info(kind).name; }

std::optional<ScalarOpKind> find_scalar_op(std::string_view name) {
  for (const ScalarOpInfo& r : kTable)
    if (r.name == name) return r.kind;
  return std::nullopt;
}

ScalarSignature scalar_signature(ScalarOpKind kind, std::span<const DType> inputs, DType floatx,
                                 std::optional<DType> cast_to) {
  const ScalarOpInfo& r = scalar_op_info(kind);
  const size_t n = inputs.size();
  if (static_cast<int>(n) != r.arity)
    throw TypeError(fmt::format("{}: expects {} operand{}, got {}", r.name, r.arity,
                                r.arity == 1 ? "" : "s", n),
                    "", fmt::format("call {} with exactly {} argument{}", r.name, r.arity,
                                    r.arity == 1 ? "" : "s"));
  switch (r.type_rule) {
    case TypeRule::Promote: {
      DType p = promote_all(inputs);
      if (p == DType::Bool) {
        switch (r.bool_inputs) {
          case BoolInputs::Keep: break;
          case BoolInputs::ToInt8: p = DType::Int8; break;
          case BoolInputs::Reject:
            throw TypeError(fmt::format("{}: not supported for bool operands ({})", r.name,
                                        dtypes_str(inputs)),
                            "", std::string(r.bool_hint));
        }
      }
      return {std::vector<DType>(n, p), p, p};
    }
    case TypeRule::FloatResult: {
      TGC_INTERNAL_CHECK(is_float(floatx), "floatX must be a float dtype");
      DType p = float_of(promote_all(inputs), floatx);
      return {std::vector<DType>(n, p), p, p};
    }
    case TypeRule::Bool: {
      DType p = promote_all(inputs);
      return {std::vector<DType>(n, p), p, DType::Bool};
    }
    case TypeRule::Where: {
      DType p = promote(inputs[1], inputs[2]);
      return {{DType::Bool, p, p}, p, p};
    }
    case TypeRule::Cast: {
      TGC_INTERNAL_CHECK(cast_to.has_value(), "cast needs a target dtype");
      return {{inputs[0]}, inputs[0], *cast_to};
    }
  }
  TGC_INTERNAL_CHECK(false, "unhandled type rule");
  return {};
}

ScalarDomain scalar_domain(ScalarOpKind kind, const ScalarSignature& sig) {
  if (is_float(sig.compute) || scalar_op_info(kind).int_fn == nullptr) return ScalarDomain::Float;
  return ScalarDomain::Int;
}

}  // namespace tgc
