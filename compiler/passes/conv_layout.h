// conv_layout: the optimizer's choice of activation layout for convolutional networks. Where
// NHWC is the faster layout for the function's device (the host's oneDNN kernels read plain
// NHWC with no reorder, where NCHW is reordered into blocked layouts on every call; CUDA's
// tensor-core convolutions, TF32 or half, want NHWC), each NCHW conv2d, its gradients and
// each pooling become NHWC ones between transposes (weights OIHW <-> OHWI), and the
// transposes then sink through what lies between the convolutions — elementwise ops whose
// other operands are broadcast vectors or scalars, reductions, batch normalization — until
// consecutive ones cancel. What is left is a transpose where a value enters or leaves the
// NHWC region: the network's input, the weights (small), a graph output read in NCHW, a
// weight gradient's update. Elsewhere (OpenCL, CUDA float32 without TF32) the program's layout
// stays. docs/conv.md#layouts-and-attributes.
#pragma once

#include <span>

#include "compiler/passes/local_rewrite.h"

namespace tgc {

// The rules, one a line (docs/optimizations.md lists them).
std::span<const LocalRewrite> conv_layout_rules();

// Runs the rules to a fixed point where NHWC wins on ctx's device. Returns whether anything
// changed.
bool conv_layout(Graph& graph, const PassContext& ctx);

}  // namespace tgc
