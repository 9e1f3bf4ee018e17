// Scalar-op rendering for the C-family dialects. Floats compute in double and round once to
// their dtype, as the reference does, except: float32 rows exact in float (+ - * / sqrt,
// comparisons, rounding, selection) compute in float, which gives the same bits; float32
// transcendental rows compute in float with the dialect's functions unless
// float32_math=double; and under fast math every float32 row computes in float. Integers
// compute in 64 bits with wrap-around through unsigned arithmetic (signed overflow is
// undefined in C) and Python's floor division and modulo; float->int conversions saturate
// (NaN -> 0) like runtime/convert.h.
#include "backends/c_family/render_scalar.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "backends/c_family/render_half.h"
#include "runtime/error.h"

namespace tgc::cfam {

namespace {

// The float helpers, for F = double (suffix d) and F = float (suffix f).
constexpr const char* kFloatHelpers = R"(
DEV F tgc_max_S(F a, F b) { return (a >= b || isnan(a)) ? a : b; }
DEV F tgc_min_S(F a, F b) { return (a <= b || isnan(a)) ? a : b; }
DEV F tgc_sign_S(F a) { return isnan(a) ? a : (a > 0 ? (F)1 : (a < 0 ? (F)-1 : (F)0)); }
DEV F tgc_floordiv_S(F a, F b) {
  if (b == 0) return a / b;
  F mod = FMOD(a, b);
  F div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= (F)1;
  if (div == 0) return COPYSIGN((F)0, a / b);
  F q = FLOOR(div);
  if (div - q > (F)0.5) q += (F)1;
  return q;
}
DEV F tgc_mod_S(F a, F b) {
  if (b == 0) return FMOD(a, b);
  F mod = FMOD(a, b);
  if (mod == 0) return COPYSIGN((F)0, b);
  if ((b < 0) != (mod < 0)) mod += b;
  return mod;
}
DEV F tgc_sigmoid_S(F x) {
  if (x >= 0) return (F)1 / ((F)1 + EXP(-x));
  F e = EXP(x);
  return e / ((F)1 + e);
}
DEV F tgc_softplus_S(F x) { return x > 0 ? x + LOG1P(EXP(-x)) : LOG1P(EXP(x)); }
)";

constexpr const char* kIntHelpers = R"(
typedef I64 tgc_i64;
typedef U64 tgc_u64;
DEV tgc_i64 tgc_wrap_add(tgc_i64 a, tgc_i64 b) { return (tgc_i64)((tgc_u64)a + (tgc_u64)b); }
DEV tgc_i64 tgc_wrap_sub(tgc_i64 a, tgc_i64 b) { return (tgc_i64)((tgc_u64)a - (tgc_u64)b); }
DEV tgc_i64 tgc_wrap_mul(tgc_i64 a, tgc_i64 b) { return (tgc_i64)((tgc_u64)a * (tgc_u64)b); }
DEV tgc_i64 tgc_imax(tgc_i64 a, tgc_i64 b) { return a > b ? a : b; }
DEV tgc_i64 tgc_imin(tgc_i64 a, tgc_i64 b) { return a < b ? a : b; }
DEV tgc_i64 tgc_floordiv_i(tgc_i64 a, tgc_i64 b, int* errors) {
  if (b == 0) { *errors |= 1; return 0; }
  if (b == -1) return tgc_wrap_sub(0, a);
  tgc_i64 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
DEV tgc_i64 tgc_mod_i(tgc_i64 a, tgc_i64 b, int* errors) {
  if (b == 0) { *errors |= 1; return 0; }
  if (b == -1) return 0;
  tgc_i64 r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
DEV tgc_i64 tgc_pow_i(tgc_i64 base, tgc_i64 exponent, int* errors) {
  if (exponent < 0) { *errors |= 2; return 0; }
  tgc_u64 result = 1, b = (tgc_u64)base;
  for (tgc_u64 e = (tgc_u64)exponent; e != 0; e >>= 1) {
    if (e & 1) result *= b;
    b *= b;
  }
  return (tgc_i64)result;
}
DEV signed char tgc_sat_i8(double d) { return isnan(d) ? 0 : d <= -128.0 ? -128 : d >= 127.0 ? 127 : (signed char)d; }
DEV unsigned char tgc_sat_u8(double d) { return isnan(d) ? 0 : d <= 0.0 ? 0 : d >= 255.0 ? 255 : (unsigned char)d; }
DEV short tgc_sat_i16(double d) { return isnan(d) ? 0 : d <= -32768.0 ? -32768 : d >= 32767.0 ? 32767 : (short)d; }
DEV int tgc_sat_i32(double d) {
  return isnan(d) ? 0 : d <= -2147483648.0 ? (-2147483647 - 1) : d >= 2147483647.0 ? 2147483647 : (int)d;
}
DEV tgc_i64 tgc_sat_i64(double d) {
  return isnan(d) ? 0 : d <= -0x1p63 ? (-9223372036854775807 - 1) : d >= 0x1p63 ? 9223372036854775807 : (tgc_i64)d;
}
)";

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

std::string float_helpers(const DialectHooks& d, bool single) {
  std::string s = kFloatHelpers;
  s = replace_all(s, "FMOD", d.math("fmod", single));
  s = replace_all(s, "COPYSIGN", d.math("copysign", single));
  s = replace_all(s, "FLOOR", d.math("floor", single));
  s = replace_all(s, "EXP", d.math("exp", single));
  s = replace_all(s, "LOG1P", d.math("log1p", single));
  s = replace_all(s, "_S(", single ? "_f(" : "_d(");
  s = replace_all(s, "F ", single ? "float " : "double ");
  s = replace_all(s, "(F)", single ? "(float)" : "(double)");
  return s;
}

bool is_exact_in_float(ScalarOpKind op) {
  using K = ScalarOpKind;
  switch (op) {
    case K::Add: case K::Sub: case K::Mul: case K::TrueDiv: case K::Neg: case K::Abs: case K::Sign:
    case K::Lt: case K::Le: case K::Gt: case K::Ge: case K::Eq: case K::Neq:
    case K::LogicalAnd: case K::LogicalOr: case K::LogicalXor: case K::LogicalNot:
    case K::Sqrt: case K::Square: case K::Floor: case K::Ceil: case K::Round: case K::Trunc:
    case K::Clip: case K::Maximum: case K::Minimum: case K::Cast: case K::IsNan: case K::IsInf:
      return true;
    default: return false;
  }
}

bool is_transcendental(ScalarOpKind op) { return float32_math_ulps(op, Dialect::Cuda) > 0; }

// Which rows yield a truth value rather than a number of the compute type.
bool yields_bool(ScalarOpKind op) {
  using K = ScalarOpKind;
  switch (op) {
    case K::Lt: case K::Le: case K::Gt: case K::Ge: case K::Eq: case K::Neq: case K::LogicalAnd:
    case K::LogicalOr: case K::LogicalXor: case K::LogicalNot: case K::IsNan: case K::IsInf:
      return true;
    default: return false;
  }
}

// The row in the float domain on F operands a, b, c (F = float when `single`).
std::string float_row(ScalarOpKind op, const std::string& a, const std::string& b, const std::string& c,
                      const DialectHooks& d, bool single) {
  const std::string s = single ? "f" : "d";
  const std::string F = single ? "float" : "double";
  auto m = [&](const char* name) { return d.math(name, single); };
  using K = ScalarOpKind;
  switch (op) {
    case K::Add: return fmt::format("({} + {})", a, b);
    case K::Sub: return fmt::format("({} - {})", a, b);
    case K::Mul: return fmt::format("({} * {})", a, b);
    case K::TrueDiv: return fmt::format("({} / {})", a, b);
    case K::FloorDiv: return fmt::format("tgc_floordiv_{}({}, {})", s, a, b);
    case K::Mod: return fmt::format("tgc_mod_{}({}, {})", s, a, b);
    case K::Pow: return fmt::format("{}({}, {})", m("pow"), a, b);
    case K::Neg: return fmt::format("(-{})", a);
    case K::Abs: return fmt::format("{}({})", m("fabs"), a);
    case K::Sign: return fmt::format("tgc_sign_{}({})", s, a);
    case K::Lt: return fmt::format("({} < {})", a, b);
    case K::Le: return fmt::format("({} <= {})", a, b);
    case K::Gt: return fmt::format("({} > {})", a, b);
    case K::Ge: return fmt::format("({} >= {})", a, b);
    case K::Eq: return fmt::format("({} == {})", a, b);
    case K::Neq: return fmt::format("({} != {})", a, b);
    case K::LogicalAnd: return fmt::format("({} != 0 && {} != 0)", a, b);
    case K::LogicalOr: return fmt::format("({} != 0 || {} != 0)", a, b);
    case K::LogicalXor: return fmt::format("(({} != 0) != ({} != 0))", a, b);
    case K::LogicalNot: return fmt::format("({} == 0)", a);
    case K::Exp: return fmt::format("{}({})", m("exp"), a);
    case K::Exp2: return fmt::format("{}({})", m("exp2"), a);
    case K::Expm1: return fmt::format("{}({})", m("expm1"), a);
    case K::Log: return fmt::format("{}({})", m("log"), a);
    case K::Log2: return fmt::format("{}({})", m("log2"), a);
    case K::Log10: return fmt::format("{}({})", m("log10"), a);
    case K::Log1p: return fmt::format("{}({})", m("log1p"), a);
    case K::Sqrt: return fmt::format("{}({})", m("sqrt"), a);
    case K::Rsqrt: return fmt::format("(({})1 / {}({}))", F, m("sqrt"), a);
    case K::Square: return fmt::format("({0} * {0})", a);
    case K::Sin: return fmt::format("{}({})", m("sin"), a);
    case K::Cos: return fmt::format("{}({})", m("cos"), a);
    case K::Tan: return fmt::format("{}({})", m("tan"), a);
    case K::Tanh: return fmt::format("{}({})", m("tanh"), a);
    case K::Sinh: return fmt::format("{}({})", m("sinh"), a);
    case K::Cosh: return fmt::format("{}({})", m("cosh"), a);
    case K::Arcsin: return fmt::format("{}({})", m("asin"), a);
    case K::Arccos: return fmt::format("{}({})", m("acos"), a);
    case K::Arctan: return fmt::format("{}({})", m("atan"), a);
    case K::Arctan2: return fmt::format("{}({}, {})", m("atan2"), a, b);
    case K::Erf: return fmt::format("{}({})", m("erf"), a);
    case K::Erfc: return fmt::format("{}({})", m("erfc"), a);
    case K::Sigmoid: return fmt::format("tgc_sigmoid_{}({})", s, a);
    case K::Softplus: return fmt::format("tgc_softplus_{}({})", s, a);
    case K::Floor: return fmt::format("{}({})", m("floor"), a);
    case K::Ceil: return fmt::format("{}({})", m("ceil"), a);
    case K::Round: return fmt::format("{}({})", m("rint"), a);  // half to even, as nearbyint
    case K::Trunc: return fmt::format("{}({})", m("trunc"), a);
    case K::Clip: return fmt::format("tgc_min_{0}(tgc_max_{0}({1}, {2}), {3})", s, a, b, c);
    case K::Maximum: return fmt::format("tgc_max_{}({}, {})", s, a, b);
    case K::Minimum: return fmt::format("tgc_min_{}({}, {})", s, a, b);
    case K::Where: return fmt::format("({} != 0 ? {} : {})", a, b, c);
    case K::Cast: return a;
    case K::IsNan: return fmt::format("(isnan({}) != 0)", a);
    case K::IsInf: return fmt::format("(isinf({}) != 0)", a);
  }
  TGC_INTERNAL_CHECK(false, "unhandled scalar op in the float domain");
  return "";
}

// The row in the integer domain on tgc_i64 operands.
std::string int_row(ScalarOpKind op, const std::string& a, const std::string& b, const std::string& c,
                    const std::string& errors) {
  using K = ScalarOpKind;
  switch (op) {
    case K::Add: return fmt::format("tgc_wrap_add({}, {})", a, b);
    case K::Sub: return fmt::format("tgc_wrap_sub({}, {})", a, b);
    case K::Mul: return fmt::format("tgc_wrap_mul({}, {})", a, b);
    case K::FloorDiv: return fmt::format("tgc_floordiv_i({}, {}, &{})", a, b, errors);
    case K::Mod: return fmt::format("tgc_mod_i({}, {}, &{})", a, b, errors);
    case K::Pow: return fmt::format("tgc_pow_i({}, {}, &{})", a, b, errors);
    case K::Neg: return fmt::format("tgc_wrap_sub(0, {})", a);
    case K::Abs: return fmt::format("({0} < 0 ? tgc_wrap_sub(0, {0}) : {0})", a);
    case K::Sign: return fmt::format("(tgc_i64)(({0} > 0) - ({0} < 0))", a);
    case K::Lt: return fmt::format("({} < {})", a, b);
    case K::Le: return fmt::format("({} <= {})", a, b);
    case K::Gt: return fmt::format("({} > {})", a, b);
    case K::Ge: return fmt::format("({} >= {})", a, b);
    case K::Eq: return fmt::format("({} == {})", a, b);
    case K::Neq: return fmt::format("({} != {})", a, b);
    case K::LogicalAnd: return fmt::format("({} != 0 && {} != 0)", a, b);
    case K::LogicalOr: return fmt::format("({} != 0 || {} != 0)", a, b);
    case K::LogicalXor: return fmt::format("(({} != 0) != ({} != 0))", a, b);
    case K::LogicalNot: return fmt::format("({} == 0)", a);
    case K::Square: return fmt::format("tgc_wrap_mul({0}, {0})", a);
    case K::Round: return a;
    case K::Clip: return fmt::format("tgc_imin(tgc_imax({}, {}), {})", a, b, c);
    case K::Maximum: return fmt::format("tgc_imax({}, {})", a, b);
    case K::Minimum: return fmt::format("tgc_imin({}, {})", a, b);
    case K::Where: return fmt::format("({} != 0 ? {} : {})", a, b, c);
    case K::Cast: return a;
    default: break;  // rows without an integer function compute in floats (scalar_domain)
  }
  TGC_INTERNAL_CHECK(false, "scalar op " + std::string(scalar_op_name(op)) + " has no integer domain");
  return "";
}

// A truth value -> `out` (true is 1).
std::string from_bool(const std::string& x, DType out, const DialectHooks& d) {
  if (out == DType::Bool) return x;
  return fmt::format("({})({})", register_type(out, d.dialect()), x);
}

// A double (or, when `single`, a float) -> `out` as convert_value does.
std::string from_float(const std::string& x, DType out, const DialectHooks& d, bool single) {
  switch (out) {
    case DType::Float64: return single ? fmt::format("(double)({})", x) : x;
    case DType::Float32: return single ? x : fmt::format("(float)({})", x);
    case DType::Bool: return fmt::format("({} != 0)", x);
    case DType::Int8: return fmt::format("tgc_sat_i8({})", x);
    case DType::UInt8: return fmt::format("tgc_sat_u8({})", x);
    case DType::Int16: return fmt::format("tgc_sat_i16({})", x);
    case DType::Int32: return fmt::format("tgc_sat_i32({})", x);
    case DType::Int64: return fmt::format("tgc_sat_i64({})", x);
    case DType::Float16:
    case DType::BFloat16: return half_from(x, out, !single);
  }
  (void)d;
  return x;
}

// An int64 -> `out`: integers wrap, floats round, bool is "nonzero".
std::string from_int(const std::string& x, DType out, const DialectHooks& d) {
  if (out == DType::Bool) return fmt::format("({} != 0)", x);
  if (out == DType::Int64) return x;
  return fmt::format("({})({})", register_type(out, d.dialect()), x);
}

}  // namespace

std::string scalar_preamble(const DialectHooks& d) {
  std::string s = d.prelude();
  std::string ints = replace_all(kIntHelpers, "I64", d.i64());
  ints = replace_all(ints, "U64", d.u64());
  if (!d.cuda()) {  // OpenCL spells the 64-bit literals with L and its signed byte as char
    // "unsigned char" first: it contains "signed char".
    ints = replace_all(ints, "unsigned char", "uchar");
    ints = replace_all(ints, "signed char", "char");
    ints = replace_all(ints, "9223372036854775807", "9223372036854775807L");
  } else {
    ints = replace_all(ints, "9223372036854775807", "9223372036854775807LL");
  }
  s += ints + float_helpers(d, false) + float_helpers(d, true) + half_helpers(d);
  // Guarded, so that whole units concatenate into one translation unit (CUDA compiles the
  // kernels a function misses as one NVRTC program: its start is most of a small unit's time).
  return "// tgc C-family kernel helpers\n#ifndef TGC_PREAMBLE\n#define TGC_PREAMBLE\n" +
         replace_all(s, "DEV ", d.helper_qualifier() + " ") + "#endif  // TGC_PREAMBLE\n";
}

std::string render_constant(const KernelValue& v, const DialectHooks& d) {
  if (is_half(v.dtype)) {  // its raw bits, rounded as the host rounds
    const uint16_t bits = v.dtype == DType::Float16 ? float16_t(v.constant).bits : bfloat16_t(v.constant).bits;
    return fmt::format("(({})0x{:04x})", register_type(v.dtype, d.dialect()), bits);
  }
  if (is_float(v.dtype)) {
    const double x = v.constant;
    const bool single = v.dtype == DType::Float32;
    std::string e;
    if (std::isnan(x)) e = d.double_from_bits("0x7ff8000000000000");
    else if (std::isinf(x)) e = (x > 0 ? "" : "-") + d.double_from_bits("0x7ff0000000000000");
    else return single ? fmt::format("({:a}f)", static_cast<double>(static_cast<float>(x))) : fmt::format("({:a})", x);
    return single ? fmt::format("((float){})", e) : e;
  }
  if (v.dtype == DType::Bool) return v.int_constant != 0 ? "true" : "false";
  if (v.int_constant == std::numeric_limits<int64_t>::min())
    return fmt::format("(({})(-9223372036854775807{} - 1))", d.i64(), d.cuda() ? "LL" : "L");
  return fmt::format("(({})({}{}))", register_type(v.dtype, d.dialect()), v.int_constant,
                     v.dtype == DType::Int64 ? (d.cuda() ? "LL" : "L") : "");
}

int float32_math_ulps(ScalarOpKind op, Dialect dialect) {
  using K = ScalarOpKind;
  // {CUDA, OpenCL}: the CUDA C++ Programming Guide's table of single-precision maximum ulp
  // errors (full range, no fast math) and the OpenCL C specification's full-profile minimum
  // accuracy. The 20 rows of the LLVM backend's float32 functions (backends/cpu/float32_math),
  // and sigmoid and softplus, whose float formulas (tgc_sigmoid_f, tgc_softplus_f) add at most
  // the error of exp and log1p to one or two roundings: 4 ulps with CUDA's, 6 with OpenCL's.
  // (On the GPU a long double-precision chain of them made a small fused gradient latency-bound.)
  struct Row {
    K op;
    int cuda, opencl;
  };
  static constexpr Row kRows[] = {
      {K::Exp, 2, 3},    {K::Exp2, 2, 3},   {K::Expm1, 1, 3},  {K::Log, 1, 3},     {K::Log2, 1, 3},
      {K::Log10, 2, 3},  {K::Log1p, 1, 2},  {K::Sin, 2, 4},    {K::Cos, 2, 4},     {K::Tan, 4, 5},
      {K::Tanh, 2, 5},   {K::Sinh, 3, 4},   {K::Cosh, 2, 4},   {K::Arcsin, 2, 4},  {K::Arccos, 2, 4},
      {K::Arctan, 2, 5}, {K::Arctan2, 3, 6}, {K::Erf, 2, 16},  {K::Erfc, 4, 16},   {K::Pow, 4, 16},
      {K::Sigmoid, 4, 6}, {K::Softplus, 4, 6},
  };
  for (const Row& r : kRows)
    if (r.op == op) return dialect == Dialect::Cuda ? r.cuda : r.opencl;
  return 0;
}

bool scalar_op_may_fail(const KernelValue& v, std::span<const DType> arg_dtypes) {
  if (v.kind != KernelValue::Kind::Op) return false;
  if (v.op != ScalarOpKind::FloorDiv && v.op != ScalarOpKind::Mod && v.op != ScalarOpKind::Pow) return false;
  const DType floatx = is_float(v.dtype) ? v.dtype : DType::Float32;
  const ScalarSignature sig = scalar_signature(v.op, arg_dtypes, floatx);
  return scalar_domain(v.op, sig) == ScalarDomain::Int;
}

std::string render_scalar_op(const KernelValue& v, std::span<const std::string> args,
                             std::span<const DType> arg_dtypes, const DialectHooks& d, Float32Rows rows,
                             const std::string& errors) {
  // Half operands are raw bits: widen them to float (exact) and render the rest as for
  // float32 operands. A half result is computed as a float32 one (or a float64 one when an
  // operand is float64) and rounded once by from_float.
  bool any_half = is_half(v.dtype);
  for (DType t : arg_dtypes) any_half = any_half || is_half(t);
  if (any_half) {
    std::vector<std::string> wide_args(args.begin(), args.end());
    std::vector<DType> wide_dtypes(arg_dtypes.begin(), arg_dtypes.end());
    for (size_t i = 0; i < wide_args.size(); ++i)
      if (is_half(wide_dtypes[i])) {
        wide_args[i] = half_to_float(wide_args[i], wide_dtypes[i]);
        wide_dtypes[i] = DType::Float32;
      }
    KernelValue w = v;
    if (is_half(v.dtype)) {
      bool any_double = false;
      for (DType t : wide_dtypes) any_double = any_double || t == DType::Float64;
      w.dtype = any_double ? DType::Float64 : DType::Float32;
      const std::string r = render_scalar_op(w, wide_args, wide_dtypes, d, rows, errors);
      return half_from(r, v.dtype, any_double);
    }
    return render_scalar_op(w, wide_args, wide_dtypes, d, rows, errors);
  }
  const DType floatx = is_float(v.dtype) ? v.dtype : DType::Float32;  // see Kernel::validate
  const std::optional<DType> cast_to = v.op == ScalarOpKind::Cast ? std::optional(v.dtype) : std::nullopt;
  const ScalarSignature sig = scalar_signature(v.op, arg_dtypes, floatx, cast_to);
  std::string in[3] = {"0", "0", "0"};
  if (scalar_domain(v.op, sig) == ScalarDomain::Float) {
    // float32 in, float32 (or a truth value) out: float arithmetic where it rounds the same
    // as double-then-float, in the transcendental functions unless float32_math=double (a
    // few ulps from the reference, at float speed), everywhere under fast math.
    bool single = v.dtype == DType::Float32 || (v.dtype == DType::Bool && yields_bool(v.op));
    for (DType t : arg_dtypes) single = single && t == DType::Float32;
    single = single && (rows == Float32Rows::All || is_exact_in_float(v.op) ||
                        (rows == Float32Rows::Transcendental && is_transcendental(v.op)));
    const std::string F = single ? "float" : "double";
    for (size_t i = 0; i < args.size(); ++i)
      in[i] = arg_dtypes[i] == (single ? DType::Float32 : DType::Float64) ? args[i]
                                                                          : fmt::format("(({}){})", F, args[i]);
    const std::string r = float_row(v.op, in[0], in[1], in[2], d, single);
    return yields_bool(v.op) ? from_bool(r, v.dtype, d) : from_float(r, v.dtype, d, single);
  }
  for (size_t i = 0; i < args.size(); ++i)
    in[i] = arg_dtypes[i] == DType::Int64 ? args[i] : fmt::format("((tgc_i64){})", args[i]);
  const std::string r = int_row(v.op, in[0], in[1], in[2], errors);
  return yields_bool(v.op) ? from_bool(r, v.dtype, d) : from_int(r, v.dtype, d);
}

}  // namespace tgc::cfam
