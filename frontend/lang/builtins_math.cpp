// Builtin rows: elementwise math (tgc/math.h), with NumPy's and Theano's names.
#include "frontend/lang/builtins.h"

namespace tgc::lang {

namespace {

template <Var (*F)(const Var&)>
Value unary(Args& a) {
  return F(a.var("x"));
}

template <Var (*F)(const Operand&, const Operand&)>
Value binary(Args& a) {
  return F(a.operand("a"), a.operand("b"));
}

Value where_(Args& a) { return where(a.operand("cond"), a.operand("a"), a.operand("b")); }
Value cast_(Args& a) { return cast(a.var("x"), a.required_dtype("dtype")); }

}  // namespace

std::vector<BuiltinRow> math_builtins() {
  return {
      {"add", "a, b", "a + b", binary<&tgc::add>},
      {"sub", "a, b", "a - b", binary<&tgc::sub>},
      {"subtract", "a, b", "a - b (NumPy's name of sub)", binary<&tgc::sub>},
      {"mul", "a, b", "a * b", binary<&tgc::mul>},
      {"multiply", "a, b", "a * b (NumPy's name of mul)", binary<&tgc::mul>},
      {"true_div", "a, b", "a / b; integers divide to floatX", binary<&tgc::true_div>},
      {"divide", "a, b", "a / b (NumPy's name of true_div)", binary<&tgc::true_div>},
      {"true_divide", "a, b", "a / b (NumPy's name of true_div)", binary<&tgc::true_div>},
      {"floor_div", "a, b", "a // b, rounding towards -inf", binary<&tgc::floor_div>},
      {"floor_divide", "a, b", "a // b (NumPy's name of floor_div)", binary<&tgc::floor_div>},
      {"mod", "a, b", "a % b, with the sign of b (NumPy's remainder)", binary<&tgc::mod>},
      {"pow", "a, b", "a ** b", binary<&tgc::pow>},
      {"power", "a, b", "a ** b (NumPy's name of pow)", binary<&tgc::pow>},
      {"neg", "x", "-x", unary<&tgc::neg>},
      {"negative", "x", "-x (NumPy's name of neg)", unary<&tgc::neg>},
      {"abs", "x", "|x|", unary<&tgc::abs>},
      {"sign", "x", "-1, 0 or 1 by the sign of x", unary<&tgc::sign>},
      {"maximum", "a, b", "elementwise maximum (NaN wins)", binary<&tgc::maximum>},
      {"minimum", "a, b", "elementwise minimum (NaN wins)", binary<&tgc::minimum>},
      {"clip", "x, min, max", "x limited to [min, max]",
       [](Args& a) -> Value { return clip(a.operand("x"), a.operand("min"), a.operand("max")); }, kTensorMethod},
      {"lt", "a, b", "a < b (bool)", binary<&tgc::lt>},
      {"less", "a, b", "a < b (NumPy's name of lt)", binary<&tgc::lt>},
      {"le", "a, b", "a <= b (bool)", binary<&tgc::le>},
      {"less_equal", "a, b", "a <= b (NumPy's name of le)", binary<&tgc::le>},
      {"gt", "a, b", "a > b (bool)", binary<&tgc::gt>},
      {"greater", "a, b", "a > b (NumPy's name of gt)", binary<&tgc::gt>},
      {"ge", "a, b", "a >= b (bool)", binary<&tgc::ge>},
      {"greater_equal", "a, b", "a >= b (NumPy's name of ge)", binary<&tgc::ge>},
      {"eq", "a, b", "a == b (bool)", binary<&tgc::eq>},
      {"equal", "a, b", "a == b (NumPy's name of eq)", binary<&tgc::eq>},
      {"neq", "a, b", "a != b (bool)", binary<&tgc::neq>},
      {"not_equal", "a, b", "a != b (NumPy's name of neq)", binary<&tgc::neq>},
      {"logical_and", "a, b", "a and b elementwise, any dtype (nonzero is true)", binary<&tgc::logical_and>},
      {"logical_or", "a, b", "a or b elementwise, any dtype", binary<&tgc::logical_or>},
      {"logical_xor", "a, b", "a xor b elementwise, any dtype", binary<&tgc::logical_xor>},
      {"logical_not", "x", "not x elementwise, any dtype", unary<&tgc::logical_not>},
      {"isnan", "x", "whether x is NaN", unary<&tgc::isnan>},
      {"isinf", "x", "whether x is +-inf", unary<&tgc::isinf>},
      {"exp", "x", "e ** x", unary<&tgc::exp>},
      {"exp2", "x", "2 ** x", unary<&tgc::exp2>},
      {"expm1", "x", "e ** x - 1, accurate near 0", unary<&tgc::expm1>},
      {"log", "x", "natural logarithm", unary<&tgc::log>},
      {"log2", "x", "base-2 logarithm", unary<&tgc::log2>},
      {"log10", "x", "base-10 logarithm", unary<&tgc::log10>},
      {"log1p", "x", "log(1 + x), accurate near 0", unary<&tgc::log1p>},
      {"sqrt", "x", "square root", unary<&tgc::sqrt>},
      {"rsqrt", "x", "1 / sqrt(x)", unary<&tgc::rsqrt>},
      {"square", "x", "x * x", unary<&tgc::square>},
      {"sqr", "x", "x * x (Theano's name of square)", unary<&tgc::sqr>},
      {"sin", "x", "sine", unary<&tgc::sin>},
      {"cos", "x", "cosine", unary<&tgc::cos>},
      {"tan", "x", "tangent", unary<&tgc::tan>},
      {"tanh", "x", "hyperbolic tangent", unary<&tgc::tanh>},
      {"sinh", "x", "hyperbolic sine", unary<&tgc::sinh>},
      {"cosh", "x", "hyperbolic cosine", unary<&tgc::cosh>},
      {"arcsin", "x", "inverse sine", unary<&tgc::arcsin>},
      {"arccos", "x", "inverse cosine", unary<&tgc::arccos>},
      {"arctan", "x", "inverse tangent", unary<&tgc::arctan>},
      {"arctan2", "a, b", "the angle of the point (b, a): arctan(a / b) in the right quadrant", binary<&tgc::arctan2>},
      {"erf", "x", "error function", unary<&tgc::erf>},
      {"erfc", "x", "1 - erf(x), accurate for large x", unary<&tgc::erfc>},
      {"sigmoid", "x", "1 / (1 + exp(-x)), stable for large |x|", unary<&tgc::sigmoid>},
      {"softplus", "x", "log(1 + exp(x)), stable for large |x|", unary<&tgc::softplus>},
      {"floor", "x", "round down", unary<&tgc::floor>},
      {"ceil", "x", "round up", unary<&tgc::ceil>},
      {"round", "x", "round half to even (integers stay)", unary<&tgc::round>},
      {"trunc", "x", "round towards 0", unary<&tgc::trunc>},
      {"where", "cond, a, b", "a where cond is true, else b (broadcasting all three)", where_},
      {"switch", "cond, a, b", "Theano's name of where", where_},
      {"cast", "x, dtype", "x converted to dtype (truncating and saturating floats to integers)", cast_},
      {"astype", "x, dtype", "x converted to dtype (NumPy's method name of cast)", cast_, kTensorMethod},
  };
}

}  // namespace tgc::lang
