// Public API: elementwise math on Vars (arithmetic, comparisons, logic, exp/log/trig...,
// clip, where, cast) and Var's operators, with NumPy broadcasting and dtype promotion.
#pragma once

#include <tgc/var.h>
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

// An argument of a math function: a Var, or a C++ number. A number is a weakly typed
// literal (like JAX's weak types, NEP 50 and Theano's autocast): it takes the dtype of the
// Vars it meets, so x + 1 keeps x's dtype. Precisely, against a Var of dtype t:
//  - t a float: the literal is a t;
//  - t an integer: an integral literal that t holds is a t, another integral one is the
//    smallest signed integer type holding it (uint8 + 300 -> int16); a fractional one is
//    floatX (int32 * 0.5 -> float32), except in comparisons, where it is float64 so the
//    comparison stays exact (i < 2.5);
//  - t bool: in comparisons 0 and 1 are bool; otherwise integral literals are the smallest
//    signed integer type holding them, fractional ones as for integers;
//  - logic functions and operators read a literal as a bool (nonzero is true);
//  - with several Vars, t is their promotion; with none (add(1, 2)) literals are floatX.
class Operand {
 public:
  Operand(const Var& v) : var_(v) {}                // NOLINT: implicit by design
  Operand(double v) : value_(v), literal_(true) {}  // NOLINT: int, float, bool too

  bool is_literal() const { return literal_; }
  const Var& var() const { return var_; }
  double value() const { return value_; }

 private:
  Var var_;
  double value_ = 0;
  bool literal_ = false;
};

// Arithmetic (NumPy semantics: // and % floor towards -inf, the remainder takes the
// divisor's sign; integer division by zero and negative integer powers are errors at
// call time). true_div of integers gives floatX.
Var add(const Operand& a, const Operand& b);
Var sub(const Operand& a, const Operand& b);
Var mul(const Operand& a, const Operand& b);
Var true_div(const Operand& a, const Operand& b);
Var floor_div(const Operand& a, const Operand& b);
Var mod(const Operand& a, const Operand& b);
Var pow(const Operand& a, const Operand& b);
Var neg(const Var& x);
Var abs(const Var& x);
Var sign(const Var& x);  // -1, 0, 1; NaN stays NaN
// NaN-propagating elementwise maximum/minimum.
Var maximum(const Operand& a, const Operand& b);
Var minimum(const Operand& a, const Operand& b);
// minimum(maximum(x, lo), hi), as NumPy's clip.
Var clip(const Operand& x, const Operand& lo, const Operand& hi);

// Comparisons give bool Vars. (== and != are functions, not operators, so that Vars keep
// their ordinary C++ equality-free value semantics in containers and tests.)
Var lt(const Operand& a, const Operand& b);
Var le(const Operand& a, const Operand& b);
Var gt(const Operand& a, const Operand& b);
Var ge(const Operand& a, const Operand& b);
Var eq(const Operand& a, const Operand& b);
Var neq(const Operand& a, const Operand& b);

// Logic on any dtype (nonzero is true), giving bool Vars.
Var logical_and(const Operand& a, const Operand& b);
Var logical_or(const Operand& a, const Operand& b);
Var logical_xor(const Operand& a, const Operand& b);
Var logical_not(const Var& x);
Var isnan(const Var& x);
Var isinf(const Var& x);

// Math. Integer and bool inputs compute in floatX (exp(int32) is floatX), except square
// and round, which keep integers (round is half to even, like np.round).
Var exp(const Var& x);
Var exp2(const Var& x);
Var expm1(const Var& x);
Var log(const Var& x);
Var log2(const Var& x);
Var log10(const Var& x);
Var log1p(const Var& x);
Var sqrt(const Var& x);
Var rsqrt(const Var& x);  // 1 / sqrt(x)
Var square(const Var& x);
Var sqr(const Var& x);  // Theano's name for square
Var sin(const Var& x);
Var cos(const Var& x);
Var tan(const Var& x);
Var tanh(const Var& x);
Var sinh(const Var& x);
Var cosh(const Var& x);
Var arcsin(const Var& x);
Var arccos(const Var& x);
Var arctan(const Var& x);
Var arctan2(const Operand& y, const Operand& x);
Var erf(const Var& x);
Var erfc(const Var& x);
Var sigmoid(const Var& x);   // 1 / (1 + exp(-x)), stable for large |x|
Var softplus(const Var& x);  // log(1 + exp(x)), stable for large |x|
Var floor(const Var& x);
Var ceil(const Var& x);
Var round(const Var& x);
Var trunc(const Var& x);

// cond ? a : b per element, broadcasting all three; cond is read as bool.
Var where(const Operand& cond, const Operand& a, const Operand& b);
Var switch_(const Operand& cond, const Operand& a, const Operand& b);  // Theano's switch
// Converts to `dtype` (NumPy's astype; float -> int truncates and saturates, NaN -> 0).
// Returns x itself when it already has that dtype.
Var cast(const Var& x, DType dtype);

// Operators. & | ^ ! are logical and need bool operands (compare first: (x > 0) & m).
Var operator+(const Var& a, const Var& b);
Var operator+(const Var& a, double b);
Var operator+(double a, const Var& b);
Var operator-(const Var& a, const Var& b);
Var operator-(const Var& a, double b);
Var operator-(double a, const Var& b);
Var operator*(const Var& a, const Var& b);
Var operator*(const Var& a, double b);
Var operator*(double a, const Var& b);
Var operator/(const Var& a, const Var& b);
Var operator/(const Var& a, double b);
Var operator/(double a, const Var& b);
Var operator%(const Var& a, const Var& b);
Var operator%(const Var& a, double b);
Var operator%(double a, const Var& b);
Var operator-(const Var& x);

Var operator<(const Var& a, const Var& b);
Var operator<(const Var& a, double b);
Var operator<(double a, const Var& b);
Var operator<=(const Var& a, const Var& b);
Var operator<=(const Var& a, double b);
Var operator<=(double a, const Var& b);
Var operator>(const Var& a, const Var& b);
Var operator>(const Var& a, double b);
Var operator>(double a, const Var& b);
Var operator>=(const Var& a, const Var& b);
Var operator>=(const Var& a, double b);
Var operator>=(double a, const Var& b);

Var operator&(const Var& a, const Var& b);
Var operator&(const Var& a, double b);
Var operator&(double a, const Var& b);
Var operator|(const Var& a, const Var& b);
Var operator|(const Var& a, double b);
Var operator|(double a, const Var& b);
Var operator^(const Var& a, const Var& b);
Var operator^(const Var& a, double b);
Var operator^(double a, const Var& b);
Var operator!(const Var& x);

TGC_API_END
}  // namespace tgc
