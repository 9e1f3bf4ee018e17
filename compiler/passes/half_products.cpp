// half_products: half products a device cannot run, computed there in float32 (see
// half_products.h).
#include "compiler/passes/half_products.h"

#include <memory>

#include "compiler/passes/graph_editor.h"
#include "ops/blas/batched_dot.h"
#include "ops/blas/dot.h"
#include "ops/core/apply.h"
#include "ops/elemwise/elemwise.h"

namespace tgc {

namespace {

constexpr const char* kName = "half_products";

VarPtr cast_to(const VarPtr& v, DType dtype, DType floatx) {
  return apply1(std::make_shared<Elemwise>(ScalarOpKind::Cast, dtype, floatx), {v});
}

}  // namespace

bool half_products(Graph& graph, const PassContext& ctx) {
  const PlacementTarget& target = ctx.placement;
  if (target.device == DeviceKind::Host || !target.runs_on_device || !ctx.enabled(kName)) return false;
  GraphEditor editor(graph);
  bool changed = false;
  for (Node* n : editor.toposort()) {
    if (!editor.alive(n) || n->num_outputs() != 1) continue;
    if (!dynamic_cast<const Dot*>(&n->op()) && !dynamic_cast<const BatchedDot*>(&n->op())) continue;
    const DType half = n->output_raw(0)->type().dtype;
    if (!is_half(half) || target.runs_on_device(*n)) continue;
    std::vector<VarPtr> wide;
    for (const VarPtr& in : n->inputs()) wide.push_back(cast_to(in, DType::Float32, ctx.config.floatX));
    const VarPtr product = apply1(n->op_ptr(), std::move(wide));
    const VarPtr result = cast_to(product, half, ctx.config.floatX);
    std::string before;
    if (ctx.trace) before = n->describe();
    editor.replace(n->output_raw(0), result);
    if (ctx.trace) ctx.trace->push_back({kName, kName, std::move(before), result->owner()->describe()});
    changed = true;
  }
  return changed;
}

}  // namespace tgc
