// half_products: half products a device cannot run, computed there in float32 (see
// half_products.h).
#include "compiler/passes/half_products.h"

#include "compiler/passes/product_dtype.h"
#include "ops/gradient/build.h"

namespace tgc {

bool half_products(Graph& graph, const PassContext& ctx) {
  constexpr const char* kName = "half_products";
  const PlacementTarget& target = ctx.placement;
  if (target.device == DeviceKind::Host || !target.runs_on_device || !ctx.enabled(kName)) return false;
  GraphEditor editor(graph);
  bool changed = false;
  for (Node* n : editor.toposort()) {
    if (!editor.alive(n) || !is_matrix_product(*n)) continue;
    if (!is_half(n->output_raw(0)->type().dtype) || target.runs_on_device(*n)) continue;
    std::vector<VarPtr> wide;
    for (const VarPtr& in : n->inputs()) wide.push_back(gradient::cast(in, DType::Float32));
    recompute_product(editor, *n, std::move(wide), ctx, kName);
    changed = true;
  }
  return changed;
}

}  // namespace tgc
