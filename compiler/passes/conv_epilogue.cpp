// conv_epilogue: the rule table and its two rules (see conv_epilogue.h).
#include "compiler/passes/conv_epilogue.h"

#include "compiler/passes/stabilize_patterns.h"
#include "ops/conv/fused_conv2d.h"
#include "ops/core/apply.h"
#include "ops/elemwise/elemwise.h"
#include "ops/shape/dimshuffle.h"

namespace tgc {

namespace {

using K = ScalarOpKind;
using stabilize_patterns::elemwise_of;
using stabilize_patterns::is_value;

// The (C,) vector that `v` lays along the channel axis of a rank-4 activation of `layout`:
// DimShuffle{x,0,x,x}(b) (NCHW) or DimShuffle{x,x,x,0}(b) / b itself (NHWC); null otherwise.
VarPtr channel_vector(const VarPtr& v, ConvLayout layout) {
  if (layout == ConvLayout::NHWC && v->type().ndim() == 1) return v;
  const Node* n = v->owner();
  const auto* ds = n ? dynamic_cast<const DimShuffle*>(&n->op()) : nullptr;
  if (!ds || n->inputs()[0]->type().ndim() != 1) return nullptr;
  const std::vector<int> want = layout == ConvLayout::NCHW ? std::vector<int>{-1, 0, -1, -1} : std::vector<int>{-1, -1, -1, 0};
  return ds->pattern() == want ? n->inputs()[0] : nullptr;
}

// add(conv2d(x, w), b) -> FusedConv2d(x, w, b), either operand order.
std::vector<VarPtr> conv_bias(Node& n, const RewriteEnv& env) {
  if (!elemwise_of(n.output_raw(0), K::Add) || n.inputs().size() != 2) return {};
  for (int side = 0; side < 2; ++side) {
    const VarPtr& y = n.inputs()[side];
    const Node* conv = y->owner();
    const auto* op = conv ? dynamic_cast<const Conv2d*>(&conv->op()) : nullptr;
    if (!op || env.graph.num_uses(y.get()) != 1) continue;
    VarPtr b = channel_vector(n.inputs()[1 - side], op->params().layout);
    if (!b || b->type().dtype != y->type().dtype) continue;
    VarPtr out = apply1(std::make_shared<FusedConv2d>(op->params(), false), {conv->inputs()[0], conv->inputs()[1], b});
    if (interchangeable(n.output_raw(0)->type(), out->type())) return {out};
  }
  return {};
}

// maximum(FusedConv2d(x, w, b), 0) -> FusedConv2d{relu}(x, w, b), either operand order.
std::vector<VarPtr> conv_bias_relu(Node& n, const RewriteEnv& env) {
  if (!elemwise_of(n.output_raw(0), K::Maximum) || n.inputs().size() != 2) return {};
  for (int side = 0; side < 2; ++side) {
    const VarPtr& y = n.inputs()[side];
    const Node* conv = y->owner();
    const auto* op = conv ? dynamic_cast<const FusedConv2d*>(&conv->op()) : nullptr;
    if (!op || op->relu() || env.graph.num_uses(y.get()) != 1 || !is_value(n.inputs()[1 - side].get(), 0.0)) continue;
    VarPtr out = apply1(std::make_shared<FusedConv2d>(op->params(), true), conv->inputs());
    if (interchangeable(n.output_raw(0)->type(), out->type())) return {out};
  }
  return {};
}

}  // namespace

std::span<const LocalRewrite> conv_epilogue_rules() {
  static const LocalRewrite rules[] = {
      {"conv_bias", "conv2d(x, w) + b.dimshuffle('x', 0, 'x', 'x') -> FusedConv2d{bias}(x, w, b)", &conv_bias},
      {"conv_bias_relu", "maximum(FusedConv2d{bias}(x, w, b), 0) -> FusedConv2d{bias+relu}(x, w, b)", &conv_bias_relu},
  };
  return rules;
}

bool conv_epilogue(Graph& graph, const PassContext& ctx) {
  return rewrite_to_fixed_point(graph, conv_epilogue_rules(), "conv_epilogue", ctx);
}

}  // namespace tgc
