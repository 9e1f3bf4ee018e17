// Scalar-op rendering: each row of the scalar-op table as a C expression that reproduces the
// reference functions (ops/elemwise/scalar_op.cpp) exactly, in the row's domain (double for
// floats, 64-bit wrap-around integers), and the helpers those expressions call (the preamble).
#pragma once

#include <span>
#include <string>

#include "backends/c_family/dialect.h"
#include "compiler/kernel/kernel_ir.h"

namespace tgc::cfam {

// Error bits kernels OR into the error flag (the CPU backend's KernelErrorBit values).
enum ErrorBit : int {
  kIntDivisionByZero = 1,  // floor_div / mod by an integer 0
  kNegativeIntPower = 2,   // pow of integers with a negative exponent
};

// The helper functions every kernel body may call (tgc_* names), and the typedefs; inside an
// include guard, so that several whole units concatenated define them once.
std::string scalar_preamble(const DialectHooks& d);

// A Constant value as an expression of its register type.
std::string render_constant(const KernelValue& v, const DialectHooks& d);

// Which float32 rows compute in float rather than in double rounded once: those exact in
// float (always: same bits), the transcendental functions (the default, float32_math=float32:
// the dialect's float functions, a few ulps from the reference) or all of them (fast math).
enum class Float32Rows { Exact, Transcendental, All };

// The transcendental rows (those Float32Rows::Transcendental computes in float) and the
// documented maximum error of the dialect's float function, in ulps of the exact result;
// 0 for every other row.
int float32_math_ulps(ScalarOpKind op, Dialect dialect);

// An Op value from its arguments (expressions of the arguments' register types): converted
// to the row's domain, computed, converted to v.dtype. `errors` names an int lvalue that
// failing rows OR their ErrorBit into. `rows` says which float32 rows compute in float.
std::string render_scalar_op(const KernelValue& v, std::span<const std::string> args,
                             std::span<const DType> arg_dtypes, const DialectHooks& d, Float32Rows rows,
                             const std::string& errors);

// Whether rendering v may set an error bit.
bool scalar_op_may_fail(const KernelValue& v, std::span<const DType> arg_dtypes);

}  // namespace tgc::cfam
