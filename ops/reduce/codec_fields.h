// The JSON fields the codecs of reductions share in saved functions: axes, one axis, floatX
// (ops/reduce/codec.cpp; ops/nn/codec.cpp for LogSumExp and the softmax ops). Reading is
// strict: a field that is not what an op's constructor takes is an IOError (a bad file), not
// the constructor's InternalError (a bug).
#pragma once

#include "ops/core/op_codec.h"
#include "ops/reduce/reduce_axes.h"

namespace tgc {

Json reduce_axes_to_json(const ReduceAxes& axes);  // [0, 2]; null for every axis
ReduceAxes reduce_axes_from_json(const Json& j);   // null, or a sorted list of distinct axes
int axis_from_json(const Json& j);                 // a non-negative int (1.0 and "1" are not)
DType floatx_from_json(const Json& j);             // a float dtype ("float32")

}  // namespace tgc
