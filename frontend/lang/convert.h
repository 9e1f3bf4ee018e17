// Turning .tg values into what the C++ API takes (Vars, weakly typed literals, concrete
// Tensors, shapes), with a SourceError at the value's position when one does not fit.
#pragma once

#include <optional>
#include <string_view>

#include "frontend/lang/context.h"
#include "frontend/lang/value.h"

namespace tgc::lang {

// A symbolic tensor: Vars as they are; concrete tensors (a device value read back to the
// host), numbers and (nested) lists of numbers become constants (integers int64, floats
// floatX, bools bool). `what` names the
// argument in the message ("argument 'x' of exp").
Var to_var(const Value& v, Context& ctx, Pos pos, std::string_view what);
// As to_var, but numbers stay weakly typed literals that take the other operands' dtype.
Operand to_operand(const Value& v, Context& ctx, Pos pos, std::string_view what);
// A concrete tensor: tensors as they are, numbers and lists as arrays (floats floatX), and
// symbolic expressions that depend on no input or shared variable, evaluated now.
Tensor to_tensor(const Value& v, Context& ctx, Pos pos, std::string_view what);
// NumPy's array(): a number or nested list/tuple of numbers; without a dtype, bools give
// bool, integers int64, anything with a float floatX.
Tensor array_from(const Value& v, std::optional<DType> dtype, Context& ctx, Pos pos);
// Checks that a shape of generated values is non-negative, within ctx.limits and of at most
// kMaxRank (runtime/shape.h) dimensions.
void check_shape(const Shape& shape, Context& ctx, Pos pos, std::string_view what);
// A dtype name ("float32", "floatX", ...) as a DType.
DType to_dtype(const Value& v, Context& ctx, Pos pos, std::string_view what);

}  // namespace tgc::lang
