// softmax_cross_entropy: a softmax cross-entropy and its gradient become one node, so that a
// GPU runs them as one row kernel (issue 19). From
//   y = log_softmax(z, axis); r = sum(t * y, axis); d = log_softmax_grad(g, y)
// where y has exactly those two readers (the product feeding only the sum), it makes
//   r, d = SoftmaxCrossEntropy(z, t, g)          (ops/nn/softmax_cross_entropy.h)
// and with g = t * c for a 0-d constant c (the gradient of -mean(...) is t times -1/N where N
// is known) the product too, c becoming the kernel's parameter rather than a transfer:
//   r, d = SoftmaxCrossEntropy{scale=c}(z, t).
// Only on a GPU whose backend runs the fused node (PlacementTarget::runs_on_device); t must
// provably have z's shape (a broadcast target keeps the separate kernels). On the host the
// graph is left alone: there the ops' own evaluations serve (decompose_for_fusion.cpp says why).
#pragma once

#include "compiler/passes/pass_context.h"
#include "ops/core/graph.h"

namespace tgc {

// Returns whether anything changed.
bool softmax_cross_entropy(Graph& graph, const PassContext& ctx);

}  // namespace tgc
