// The JSON fields the codecs of reductions share in saved functions: axes and one axis
// (ops/reduce/codec.cpp; ops/nn/codec.cpp for LogSumExp and the softmax ops). Reading is
// strict, over op_codec.h's field readers: a field that is not what an op's constructor takes
// is an IOError (a bad file), not the constructor's InternalError (a bug).
#pragma once

#include "ops/core/op_codec.h"
#include "ops/reduce/reduce_axes.h"

namespace tgc {

Json reduce_axes_to_json(const ReduceAxes& axes);                   // [0, 2]; null for every axis
ReduceAxes reduce_axes_field(const Json& fields, const char* key);  // null, or a sorted list of distinct axes
int axis_field(const Json& fields, const char* key);                // a non-negative int (1.0 and "1" are not)

}  // namespace tgc
