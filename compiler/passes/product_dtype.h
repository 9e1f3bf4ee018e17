// What the passes that change the dtype a matrix product computes in share (mixed_precision:
// float32 products on half copies; half_products: half products on float32 copies): which
// nodes are products, and the rewrite of one into the same op on cast operands, its result
// cast back to the node's dtype.
#pragma once

#include <vector>

#include "compiler/passes/graph_editor.h"
#include "compiler/passes/pass_context.h"

namespace tgc {

// Dot or BatchedDot with one output.
bool is_matrix_product(const Node& n);

// Replaces product `n` by cast(op(operands), n's dtype): the same op applied to `operands`
// (n's inputs in another dtype), its result cast back. Recorded in ctx.trace under `pass`.
void recompute_product(GraphEditor& editor, Node& n, std::vector<VarPtr> operands, const PassContext& ctx,
                       const char* pass);

}  // namespace tgc
