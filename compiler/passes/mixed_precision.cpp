// mixed_precision: float32 products on half operands (see mixed_precision.h).
#include "compiler/passes/mixed_precision.h"

#include <memory>

#include "compiler/passes/graph_editor.h"
#include "ops/blas/batched_dot.h"
#include "ops/blas/dot.h"
#include "ops/core/apply.h"
#include "ops/elemwise/elemwise.h"
#include "ops/shape/dimshuffle.h"

namespace tgc {

namespace {

constexpr const char* kName = "mixed_precision";

VarPtr cast_to(const VarPtr& v, DType dtype, DType floatx) {
  return apply1(std::make_shared<Elemwise>(ScalarOpKind::Cast, dtype, floatx), {v});
}

// `v` in the half type. A transpose (any DimShuffle) of a value is the transpose of the
// value's half copy: the gradient's dot(x.T, g) and the forward pass's dot(x, w) then share
// one cast of x (merge makes the equal casts one node), not one per orientation.
VarPtr half_copy(const VarPtr& v, DType half, DType floatx) {
  if (Node* owner = v->owner(); owner && dynamic_cast<const DimShuffle*>(&owner->op()))
    return apply1(owner->op_ptr(), {half_copy(owner->inputs()[0], half, floatx)});
  return cast_to(v, half, floatx);
}

bool is_product(const Node& n) {
  return dynamic_cast<const Dot*>(&n.op()) != nullptr || dynamic_cast<const BatchedDot*>(&n.op()) != nullptr;
}

}  // namespace

bool mixed_precision(Graph& graph, const PassContext& ctx) {
  const std::string& mode = ctx.config.mixed_precision;
  if (mode == "none" || !ctx.enabled(kName)) return false;
  const DType half = parse_dtype(mode);
  GraphEditor editor(graph);
  bool changed = false;
  for (Node* n : editor.toposort()) {
    if (!editor.alive(n) || !is_product(*n) || n->num_outputs() != 1) continue;
    const Variable* out = n->output_raw(0);
    bool all_float32 = out->type().dtype == DType::Float32;
    for (const VarPtr& in : n->inputs()) all_float32 = all_float32 && in->type().dtype == DType::Float32;
    if (!all_float32) continue;
    std::vector<VarPtr> halves;
    for (const VarPtr& in : n->inputs()) halves.push_back(half_copy(in, half, ctx.config.floatX));
    const VarPtr product = apply1(n->op_ptr(), std::move(halves));
    const VarPtr result = cast_to(product, DType::Float32, ctx.config.floatX);
    std::string before;
    if (ctx.trace) before = n->describe();
    editor.replace(n->output_raw(0), result);
    if (ctx.trace) ctx.trace->push_back({kName, kName, std::move(before), result->owner()->describe()});
    changed = true;
  }
  return changed;
}

}  // namespace tgc
