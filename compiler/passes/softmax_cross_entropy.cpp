// softmax_cross_entropy: finds each log_softmax read by exactly a sum(t * y) and a
// log_softmax_grad, and replaces both readers by the outputs of one SoftmaxCrossEntropy node.
#include "compiler/passes/softmax_cross_entropy.h"

#include <memory>
#include <optional>

#include "compiler/passes/graph_editor.h"
#include "compiler/passes/shape_equivalence.h"
#include "ops/core/apply.h"
#include "ops/elemwise/elemwise.h"
#include "ops/nn/log_softmax_grad.h"
#include "ops/nn/softmax.h"
#include "ops/nn/softmax_cross_entropy.h"
#include "ops/reduce/careduce.h"

namespace tgc {

namespace {

constexpr const char* kName = "softmax_cross_entropy";

const Elemwise* plain_mul(const Node& n) {
  const auto* e = dynamic_cast<const Elemwise*>(&n.op());
  return e && e->kind() == ScalarOpKind::Mul && e->inplace_input(0) < 0 && n.inputs().size() == 2 ? e : nullptr;
}

// The pattern around one log_softmax node, when it is all there.
struct Match {
  Node* sum = nullptr;   // CAReduce{Sum, axis}(mul(t, y))
  Node* grad = nullptr;  // LogSoftmaxGrad(g, y)
  VarPtr t, g;
  std::optional<double> scale;  // set: g is t * scale, folded
};

std::optional<Match> match(const GraphEditor& editor, Node& log_softmax, int axis, ShapeEquivalence& shapes) {
  Variable* y = log_softmax.output_raw(0);
  if (editor.is_output(y)) return std::nullopt;
  const auto& clients = editor.clients(y);
  if (clients.size() != 2) return std::nullopt;
  Match m;
  Node* mul = nullptr;
  for (const auto& [c, position] : clients) {
    if (const auto* lg = dynamic_cast<const LogSoftmaxGrad*>(&c->op()); lg && position == 1 && lg->axis() == axis)
      m.grad = c;
    else if (plain_mul(*c))
      mul = c;
  }
  if (!m.grad || !mul || mul->inputs()[0].get() == mul->inputs()[1].get()) return std::nullopt;
  // The product feeds only the row sum along the same axis, result without the axis.
  Variable* product = mul->output_raw(0);
  if (editor.is_output(product) || editor.clients(product).size() != 1) return std::nullopt;
  Node* sum = editor.clients(product)[0].first;
  const auto* red = dynamic_cast<const CAReduce*>(&sum->op());
  if (!red || red->kind() != ReduceKind::Sum || red->keepdims() || !red->axes() || red->axes()->size() != 1 ||
      (*red->axes())[0] != axis)
    return std::nullopt;
  m.sum = sum;
  m.t = mul->inputs()[0].get() == y ? mul->inputs()[1] : mul->inputs()[0];
  const Type& yt = y->type();
  if (m.t->type().dtype != yt.dtype || product->type().dtype != yt.dtype || sum->output_raw(0)->type().dtype != yt.dtype)
    return std::nullopt;
  if (!shapes.same_shape(*m.t, *y)) return std::nullopt;  // a broadcast target stays as it is
  m.g = m.grad->inputs()[0];
  // g = t * c with a 0-d constant c (either order), read only here: folded into the row kernel.
  if (const Node* gm = m.g->owner(); gm && plain_mul(*gm) && editor.num_uses(m.g.get()) == 1) {
    for (int side = 0; side < 2; ++side) {
      const Variable& c = *gm->inputs()[1 - side];
      if (gm->inputs()[side].get() != m.t.get() || c.type().ndim() != 0 || c.type().dtype != yt.dtype ||
          m.g->type().dtype != yt.dtype || c.kind() != Variable::Kind::Constant)
        continue;
      const Tensor& v = c.constant_value();
      if (!v.defined() || !v.on_host() || v.numel() != 1) continue;
      m.scale = v.at({});
      break;
    }
  }
  return m;
}

}  // namespace

bool softmax_cross_entropy(Graph& graph, const PassContext& ctx) {
  const PlacementTarget& target = ctx.placement;
  if (target.device == DeviceKind::Host || !target.runs_on_device || !ctx.enabled(kName)) return false;
  GraphEditor editor(graph);
  ShapeEquivalence shapes(&ctx.shared_shapes);
  bool changed = false;
  for (Node* n : editor.toposort()) {
    if (!editor.alive(n)) continue;
    const auto* sm = dynamic_cast<const Softmax*>(&n->op());
    if (!sm || !sm->log() || n->inputs()[0]->type().dtype != n->output_raw(0)->type().dtype) continue;
    const std::optional<Match> m = match(editor, *n, sm->axis(), shapes);
    if (!m) continue;
    std::vector<VarPtr> inputs = {n->inputs()[0], m->t};
    if (!m->scale) inputs.push_back(m->g);
    const std::vector<VarPtr> fused = tgc::apply(std::make_shared<SoftmaxCrossEntropy>(sm->axis(), m->scale), inputs);
    if (!target.runs_on_device(*fused[0]->owner())) continue;  // the backend keeps the separate kernels
    std::string before;
    if (ctx.trace) before = m->sum->describe() + " and " + m->grad->describe();
    editor.replace(m->sum->output_raw(0), fused[0]);
    editor.replace(m->grad->output_raw(0), fused[1]);
    if (ctx.trace) ctx.trace->push_back({kName, kName, std::move(before), fused[0]->owner()->describe()});
    changed = true;
  }
  return changed;
}

}  // namespace tgc
