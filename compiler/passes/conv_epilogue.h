// conv_epilogue: a convolution's bias add and relu become its epilogue — conv2d(x, w) + b
// (b a (C,) vector along the channel axis) -> FusedConv2d(x, w, b), and maximum(that, 0) ->
// FusedConv2d{relu} — so oneDNN applies them as the primitive's bias and post-op
// (ops/conv/fused_conv2d.h). Each rule fires only where the convolution's (or the biased
// result's) single reader is the add (the max), so nothing is computed twice; in training the
// relu's gradient reads the biased result, so there the bias alone fuses.
#pragma once

#include <span>

#include "compiler/passes/local_rewrite.h"

namespace tgc {

// The rules, one a line (docs/optimizations.md lists them).
std::span<const LocalRewrite> conv_epilogue_rules();

// Runs the rules to a fixed point. Returns whether anything changed.
bool conv_epilogue(Graph& graph, const PassContext& ctx);

}  // namespace tgc
