// The scalar-op table: one row per elementwise primitive (name, arity, type rule, reference
// functions, derivative rule). Elemwise evaluates and differentiates from it; later issues
// add backend renderings, so adding a scalar op touches one row here plus its test.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "ops/core/variable.h"
#include "runtime/dtype.h"

namespace tgc {

enum class ScalarOpKind : uint8_t {
  // Arithmetic.
  Add, Sub, Mul, TrueDiv, FloorDiv, Mod, Pow, Neg, Abs, Sign,
  // Comparisons.
  Lt, Le, Gt, Ge, Eq, Neq,
  // Logic.
  LogicalAnd, LogicalOr, LogicalXor, LogicalNot,
  // Math.
  Exp, Exp2, Expm1, Log, Log2, Log10, Log1p, Sqrt, Rsqrt, Square,
  Sin, Cos, Tan, Tanh, Sinh, Cosh, Arcsin, Arccos, Arctan, Arctan2, Erf, Erfc,
  Sigmoid, Softplus, Floor, Ceil, Round, Trunc, Clip, Maximum, Minimum,
  // Selection, conversion, classification.
  Where, Cast, IsNan, IsInf,
};

// How the output dtype and the compute dtype follow from the input dtypes.
enum class TypeRule : uint8_t {
  Promote,      // NumPy promotion of all inputs; compute and output in it
  FloatResult,  // promotion, then integers/bool -> floatX: exp(int32) -> floatX
  Bool,         // compute in the promotion of the inputs, output bool
  Where,        // where(cond, a, b): cond is read as bool, a and b promote
  Cast,         // output the explicit target dtype, convert directly
};

// What a Promote op does when every input is bool (NumPy's loops differ per ufunc).
enum class BoolInputs : uint8_t {
  Keep,    // stays bool: + is or, * is and, maximum/minimum/abs/clip/round
  ToInt8,  // computes and returns int8: //, %, **, square
  Reject,  // TypeError with the row's hint: '-', unary -, sign
};

// Reference functions. Every op evaluates on double (the float domain); ops that keep
// integers also evaluate on int64 (the integer domain). Arguments past the arity are 0.
// Integer functions may throw ValueError (division by zero, negative integer powers).
using FloatFn = double (*)(double a, double b, double c);
using IntFn = int64_t (*)(int64_t a, int64_t b, int64_t c);
// The same functions applied over arrays (generated from the scalar ones, so a fast loop
// needs no per-element indirect call). out[i] = f(a[i], b[i], c[i]).
using FloatArrayFn = void (*)(const double* a, const double* b, const double* c, double* out,
                              int64_t n);
using IntArrayFn = void (*)(const int64_t* a, const int64_t* b, const int64_t* c, int64_t* out,
                            int64_t n);

// A row's derivative rule (rules live in ops/elemwise/scalar_grad.cpp). `inputs` are the
// node's operands already converted to the row's float operand dtype (where's condition is
// left as it is), `output` the node's output, `output_grad` d cost / d output. Returns one
// entry per input: d output / d input_i times output_grad, in the output's broadcast shape
// (Elemwise::grad sums it back to the input's shape and dtype), or null where input i has
// no gradient (where's condition). Rules may assume float inputs: Elemwise::grad never asks
// for the gradient of an integer or bool input.
using ScalarGradFn = std::vector<VarPtr> (*)(const std::vector<VarPtr>& inputs,
                                             const VarPtr& output, const VarPtr& output_grad);

// One row of the table. (Later issues add one rendering per backend — C-family/CUDA/OpenCL
// expression templates and the LLVM lowering.)
struct ScalarOpInfo {
  ScalarOpKind kind;
  std::string_view name;  // "add", "exp": the user's function name and Elemwise{name}
  int arity;
  TypeRule type_rule;
  BoolInputs bool_inputs;     // only consulted for Promote rows
  std::string_view bool_hint;  // for BoolInputs::Reject
  FloatFn float_fn;           // always set
  IntFn int_fn;               // null when the op always computes in floats
  FloatArrayFn float_array;
  IntArrayFn int_array;       // null iff int_fn is
  // Null for piecewise-constant rows (comparisons, logic, isnan/isinf, floor/ceil/round/
  // trunc, sign, floor_div): as in Theano their gradient is zero wherever it exists, so
  // Elemwise::grad gives zeros for their float inputs rather than calling them
  // non-differentiable.
  ScalarGradFn grad;
};

std::span<const ScalarOpInfo> scalar_op_table();  // in ScalarOpKind order
const ScalarOpInfo& scalar_op_info(ScalarOpKind kind);
std::string_view scalar_op_name(ScalarOpKind kind);
// The row called `name` ("exp"), or nullopt.
std::optional<ScalarOpKind> find_scalar_op(std::string_view name);

// The dtypes one application works in, for given input dtypes.
struct ScalarSignature {
  std::vector<DType> operands;  // the dtype input i is converted to, element by element
  DType compute;                // the dtype the operation itself is carried out in
  DType out;
  bool operator==(const ScalarSignature&) const = default;
};

// Applies the row's type rule. `floatx` is the float type integers compute in for
// FloatResult ops; `cast_to` is the target of Cast (required there, ignored elsewhere).
// Throws TypeError naming the op and the dtypes (wrong input count, bool '-').
ScalarSignature scalar_signature(ScalarOpKind kind, std::span<const DType> inputs, DType floatx,
                                 std::optional<DType> cast_to = std::nullopt);

// Which reference function evaluates a signature: floats compute on double and round once
// to the output type (so float32 results are the correctly rounded double results, up to
// the double function's own error); integers and bool compute on int64 and wrap to the
// output type like NumPy.
enum class ScalarDomain : uint8_t { Float, Int };
ScalarDomain scalar_domain(ScalarOpKind kind, const ScalarSignature& sig);

}  // namespace tgc
