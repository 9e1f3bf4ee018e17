// mixed_precision: float32 products on half operands (see mixed_precision.h).
#include "compiler/passes/mixed_precision.h"

#include "compiler/passes/product_dtype.h"
#include "ops/core/apply.h"
#include "ops/gradient/build.h"
#include "ops/shape/dimshuffle.h"

namespace tgc {

namespace {

constexpr const char* kName = "mixed_precision";

// `v` in the half type. A transpose (any DimShuffle) of a value is the transpose of the
// value's half copy: the gradient's dot(x.T, g) and the forward pass's dot(x, w) then share
// one cast of x (merge makes the equal casts one node), not one per orientation.
VarPtr half_copy(const VarPtr& v, DType half) {
  if (Node* owner = v->owner(); owner && dynamic_cast<const DimShuffle*>(&owner->op()))
    return apply1(owner->op_ptr(), {half_copy(owner->inputs()[0], half)});
  return gradient::cast(v, half);
}

}  // namespace

bool mixed_precision(Graph& graph, const PassContext& ctx) {
  const std::string& mode = ctx.config.mixed_precision;
  if (mode == "none" || !ctx.enabled(kName)) return false;
  const DType half = parse_dtype(mode);
  GraphEditor editor(graph);
  bool changed = false;
  for (Node* n : editor.toposort()) {
    if (!editor.alive(n) || !is_matrix_product(*n)) continue;
    bool all_float32 = n->output_raw(0)->type().dtype == DType::Float32;
    for (const VarPtr& in : n->inputs()) all_float32 = all_float32 && in->type().dtype == DType::Float32;
    if (!all_float32) continue;
    std::vector<VarPtr> halves;
    for (const VarPtr& in : n->inputs()) halves.push_back(half_copy(in, half));
    recompute_product(editor, *n, std::move(halves), ctx, kName);
    changed = true;
  }
  return changed;
}

}  // namespace tgc
