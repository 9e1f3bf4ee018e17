// float32_casting: the design's precision policy for graphs whose floatX is float32. A
// float64 constant that meets float32 values is narrowed to float32 when float32 holds its
// values (to float32's precision, without overflow or underflow), and the float64 it made
// downstream goes with it; a user's explicit cast to float64 is kept, and so is everything
// computed from it. With warn_float64, every node still outputting float64 in a graph whose
// inputs and shared variables are float32 is reported (ctx.warn), with where float64 entered.
#pragma once

#include "compiler/passes/pass_context.h"
#include "ops/core/graph.h"

namespace tgc {

// Narrowing happens when ctx.config.floatX is float32; reporting when ctx.config.warn_float64
// is set. Where a float64 value is still needed (a graph output, whose dtype the function
// promises, or an op that also reads a genuine float64), the narrowed value is cast back to
// float64 there. Returns whether the graph changed.
bool float32_casting(Graph& graph, const PassContext& ctx);

}  // namespace tgc
