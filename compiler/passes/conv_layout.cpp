// conv_layout: the rule table and its rules (see conv_layout.h). A transpose here is a
// DimShuffle whose pattern permutes all four axes; T_p(a) reads axis i of its result from axis
// p[i] of a.
#include "compiler/passes/conv_layout.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "ops/alloc/alloc.h"
#include "ops/conv/conv2d.h"
#include "ops/conv/dnnl_conv.h"
#include "ops/core/apply.h"
#include "ops/elemwise/elemwise.h"
#include "ops/gradient/sum_to_like.h"
#include "ops/norm/batch_norm.h"
#include "ops/pool/pool2d.h"
#include "ops/reduce/careduce.h"
#include "ops/reduce/mean.h"
#include "ops/reduce/reduce_count.h"
#include "ops/shape/dimshuffle.h"

namespace tgc {

namespace {

using Pattern = std::vector<int>;
const Pattern kToNhwc{0, 2, 3, 1};  // NCHW -> NHWC, and OIHW -> OHWI
const Pattern kToNchw{0, 3, 1, 2};  // NHWC -> NCHW, and OHWI -> OIHW

bool identity(const Pattern& p) {
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != static_cast<int>(i)) return false;
  return true;
}

Pattern inverse(const Pattern& p) {
  Pattern inv(p.size());
  for (size_t i = 0; i < p.size(); ++i) inv[p[i]] = static_cast<int>(i);
  return inv;
}

VarPtr transpose(const VarPtr& v, const Pattern& p) {
  return apply1(std::make_shared<DimShuffle>(p, "transpose"), {v});
}

// v = T_p(a) with p a permutation of four axes other than the identity.
struct Transposed {
  VarPtr a;
  Pattern p;
};
// Whether node n is a DimShuffle permuting four axes (not the identity).
const DimShuffle* transpose_node(const Node* n) {
  const auto* ds = n ? dynamic_cast<const DimShuffle*>(&n->op()) : nullptr;
  if (!ds || ds->pattern().size() != 4 || n->inputs()[0]->type().ndim() != 4 || identity(ds->pattern())) return nullptr;
  Pattern seen = ds->pattern();
  std::sort(seen.begin(), seen.end());
  return identity(seen) ? ds : nullptr;  // else a broadcast axis or a dropped one
}
std::optional<Transposed> transposed(const VarPtr& v) {
  const Node* n = v->owner();
  const DimShuffle* ds = transpose_node(n);
  if (!ds) return {};
  return Transposed{n->inputs()[0], ds->pattern()};
}

// Whether rank-4 `v` is known to be 1 along two axes at least (an (N, C, 1, 1) gradient of a
// global average): its transposed view costs nothing worth a kernel's layout.
bool small(const VarPtr& v) {
  const std::vector<int64_t>& dims = v->type().shape;
  return std::count(dims.begin(), dims.end(), int64_t{1}) >= 2;
}

// `v` (an operand in the transposed order of T_p) in the order of T_p's input, where that costs
// nothing: T_p(b) -> b, a spread of a lower-rank value (a (C,) vector laid along the channel
// axis) -> the same value spread along the permuted axes, a 0-d value -> itself, and a value
// known to be 1 along two axes at least (an (N, C, 1, 1) gradient of a global average) or one
// whose elements are not read (`shape_only`: fill's and sum_to_like's `like`) -> a transposed
// view of it. Null otherwise (a dense rank-4 tensor in the other order: moving the transpose
// would transpose it).
VarPtr in_input_order(const VarPtr& v, const Pattern& p, bool shape_only = false) {
  if (v->type().ndim() == 0) return v;
  if (v->type().ndim() != 4) return nullptr;
  const Node* n = v->owner();
  const auto* ds = n ? dynamic_cast<const DimShuffle*>(&n->op()) : nullptr;
  if (!ds) return shape_only || small(v) ? transpose(v, inverse(p)) : nullptr;
  const VarPtr& src = n->inputs()[0];
  const bool same = ds->pattern() == p, spread = src->type().ndim() < 4;
  if (!same && !spread) return nullptr;
  const Pattern inv = inverse(p);
  Pattern q(4);
  for (int j = 0; j < 4; ++j) q[j] = ds->pattern()[inv[j]];
  return identity(q) && src->type().ndim() == 4 ? src : transpose(src, q);
}

// Whether NHWC is the faster layout of `dtype`'s convolutions on the function's device.
bool nhwc_wins(const PassContext& ctx, DType dtype) {
  switch (ctx.placement.device) {
    case DeviceKind::Host: return dnnl_conv_enabled(dtype);
    case DeviceKind::Cuda:
      return (dtype == DType::Float32 && ctx.config.cuda_tf32) || dtype == DType::Float16 || dtype == DType::BFloat16;
    case DeviceKind::OpenCL: return false;  // CLBlast's convgemm and the direct kernels: NCHW
  }
  return false;
}

// conv2d / its gradients / pooling in NCHW -> the NHWC op between transposes.
std::vector<VarPtr> conv_to_nhwc(Node& n, const RewriteEnv& env) {
  const Op& op = n.op();
  std::shared_ptr<const Op> nhwc;
  if (const auto* c = dynamic_cast<const ConvOpBase*>(&op)) {
    if (c->params().layout != ConvLayout::NCHW) return {};
    Conv2dParams p = c->params();
    p.layout = ConvLayout::NHWC;
    if (dynamic_cast<const Conv2d*>(&op)) nhwc = std::make_shared<Conv2d>(p);
    else if (const auto* gi = dynamic_cast<const Conv2dGradInput*>(&op)) nhwc = std::make_shared<Conv2dGradInput>(p, gi->transpose());
    else if (dynamic_cast<const Conv2dGradWeights*>(&op)) nhwc = std::make_shared<Conv2dGradWeights>(p);
    else return {};  // FusedConv2d: made later, by conv_epilogue, from the rewritten ops
  } else if (const auto* pool = dynamic_cast<const Pool2d*>(&op)) {
    if (pool->params().layout != ConvLayout::NCHW) return {};
    Pool2dParams p = pool->params();
    p.layout = ConvLayout::NHWC;
    nhwc = std::make_shared<Pool2d>(p);
  } else if (const auto* pg = dynamic_cast<const Pool2dGrad*>(&op)) {
    if (pg->params().layout != ConvLayout::NCHW) return {};
    Pool2dParams p = pg->params();
    p.layout = ConvLayout::NHWC;
    nhwc = std::make_shared<Pool2dGrad>(p);
  } else {
    return {};
  }
  if (!nhwc_wins(env.ctx, n.output_raw(0)->type().dtype)) return {};
  std::vector<VarPtr> in;
  for (const VarPtr& v : n.inputs()) in.push_back(v->type().ndim() == 4 ? transpose(v, kToNhwc) : v);
  std::vector<VarPtr> out;
  for (const VarPtr& v : apply(nhwc, in)) out.push_back(v->type().ndim() == 4 ? transpose(v, kToNchw) : v);
  return out;
}

// T_p(T_q(x)) -> T_{q.p}(x), nothing at all where that is the identity: consecutive
// transposes (NHWC -> NCHW -> NHWC between two convolutions) cancel.
std::vector<VarPtr> transposes_compose(Node& n, const RewriteEnv&) {
  const DimShuffle* outer = transpose_node(&n);
  const Node* in = n.inputs()[0]->owner();
  const DimShuffle* inner = transpose_node(in);
  if (!outer || !inner) return {};
  Pattern p(4);
  for (int i = 0; i < 4; ++i) p[i] = inner->pattern()[outer->pattern()[i]];
  const VarPtr& x = in->inputs()[0];
  return {identity(p) ? x : transpose(x, p)};
}

// elemwise(T_p(a), spread(b), c, ...) -> T_p(elemwise(a, spread'(b), c, ...)); fill(like,
// value), which broadcasts its operands as elementwise ops do, alike.
std::vector<VarPtr> transpose_after_elemwise(Node& n, const RewriteEnv&) {
  const bool elementwise = dynamic_cast<const Elemwise*>(&n.op()) || dynamic_cast<const Fill*>(&n.op());
  if (!elementwise || n.num_outputs() != 1 || n.output_raw(0)->type().ndim() != 4) return {};
  // The trigger: a transposed activation (not a small value, which in_input_order moves as a
  // view either way: triggering on those would move transposes back and forth).
  std::optional<Pattern> p;
  for (const VarPtr& v : n.inputs())
    if (auto t = transposed(v); t && !small(t->a)) {
      p = t->p;
      break;
    }
  if (!p) return {};
  std::vector<VarPtr> in;
  const bool fill = dynamic_cast<const Fill*>(&n.op()) != nullptr;
  for (size_t i = 0; i < n.inputs().size(); ++i) {
    VarPtr moved = in_input_order(n.inputs()[i], *p, fill && i == 0);
    if (!moved) return {};
    in.push_back(moved);
  }
  return {transpose(apply1(n.op_ptr(), in), *p)};
}

// sum / mean over axes A of T_p(a) -> the same over p(A) of a: T_p of it with keepdims, else
// the kept axes in a's order put back in T_p's (often already so: (N, C) of NCHW or NHWC).
std::vector<VarPtr> transpose_after_reduce(Node& n, const RewriteEnv&) {
  const auto* red = dynamic_cast<const CAReduce*>(&n.op());
  const auto* mean = dynamic_cast<const Mean*>(&n.op());
  if (!red && !mean) return {};
  auto t = transposed(n.inputs()[0]);
  if (!t) return {};
  const ReduceAxes& axes = red ? red->axes() : mean->axes();
  const bool keep = red ? red->keepdims() : mean->keepdims();
  std::vector<bool> reduced(4, !axes.has_value());
  if (axes)
    for (int i : *axes) reduced[i] = true;
  std::vector<int> moved;
  for (int i = 0; i < 4; ++i)
    if (reduced[i]) moved.push_back(t->p[i]);
  std::sort(moved.begin(), moved.end());
  const ReduceAxes new_axes = axes ? ReduceAxes(moved) : ReduceAxes();
  std::shared_ptr<const Op> op = red ? std::shared_ptr<const Op>(std::make_shared<CAReduce>(red->kind(), new_axes, keep,
                                                                                           red->identity_when_empty()))
                                     : std::make_shared<Mean>(new_axes, keep, mean->floatx());
  const VarPtr r = apply1(op, {t->a});
  if (keep) return {transpose(r, t->p)};
  // Kept axes of a, ascending, are r's; T_p's kept axes i (ascending) read a's axis p[i].
  std::vector<int> kept_a;
  for (int j = 0; j < 4; ++j)
    if (std::find(moved.begin(), moved.end(), j) == moved.end()) kept_a.push_back(j);
  Pattern q;
  for (int i = 0; i < 4; ++i)
    if (!reduced[i])
      q.push_back(static_cast<int>(std::find(kept_a.begin(), kept_a.end(), t->p[i]) - kept_a.begin()));
  return {identity(q) ? r : apply1(std::make_shared<DimShuffle>(q, "transpose"), {r})};
}

// sum_to_like(T_p(g), like) -> T_p(sum_to_like(g, like')), like moved as elemwise operands
// are (a broadcast's gradient, of the shape it had; both in one order, the sum is the same).
std::vector<VarPtr> transpose_after_sum_to_like(Node& n, const RewriteEnv&) {
  if (!dynamic_cast<const SumToLike*>(&n.op()) || n.inputs()[0]->type().ndim() != 4) return {};
  auto t = transposed(n.inputs()[0]);
  if (!t) return {};
  VarPtr like = in_input_order(n.inputs()[1], t->p, true);
  if (!like) return {};
  return {transpose(apply1(n.op_ptr(), {t->a, like}), t->p)};
}

// reduce_count(T_p(a), axes) -> reduce_count(a, p(axes)): the count of a shape's elements
// does not depend on their order; a's transposed view is then read by nothing.
std::vector<VarPtr> count_before_transpose(Node& n, const RewriteEnv&) {
  const auto* rc = dynamic_cast<const ReduceCount*>(&n.op());
  if (!rc) return {};
  auto t = transposed(n.inputs()[0]);
  if (!t) return {};
  ReduceAxes axes;
  if (rc->axes()) {
    std::vector<int> moved;
    for (int i : *rc->axes()) moved.push_back(t->p[i]);
    std::sort(moved.begin(), moved.end());
    axes = moved;
  }
  return {apply1(std::make_shared<ReduceCount>(axes, rc->dtype()), {t->a})};
}

// batch_norm_train(T_p(x)) -> T_p of it over x's channel axis p(c); its gradient the same,
// dy moved as elemwise operands are.
std::vector<VarPtr> transpose_after_batch_norm(Node& n, const RewriteEnv&) {
  const auto* bn = dynamic_cast<const BatchNormOp*>(&n.op());
  if (!bn || n.inputs()[0]->type().ndim() != 4) return {};
  auto t = transposed(n.inputs()[0]);
  if (!t) return {};
  std::vector<VarPtr> in = n.inputs();
  in[0] = t->a;
  std::shared_ptr<const Op> op;
  const int axis = t->p[bn->channel_axis()];
  if (dynamic_cast<const BatchNormTraining*>(bn)) {
    op = std::make_shared<BatchNormTraining>(axis, bn->epsilon());
  } else if (dynamic_cast<const BatchNormGrad*>(bn)) {
    in[1] = in_input_order(in[1], t->p);
    if (!in[1]) return {};
    op = std::make_shared<BatchNormGrad>(axis, bn->epsilon());
  } else {
    return {};
  }
  std::vector<VarPtr> out = apply(op, in);
  out[0] = transpose(out[0], t->p);
  return out;
}

const LocalRewrite kRules[] = {
    {"conv_to_nhwc",
     "conv2d(x, w) -> transpose(conv2d_nhwc(transpose(x), transpose(w))), and so its gradients and pooling, where "
     "NHWC is the device's faster layout",
     &conv_to_nhwc},
    {"transposes_compose", "transpose(transpose(x)) -> x (or one transpose)", &transposes_compose},
    {"transpose_after_elemwise", "f(transpose(a), spread(b)) -> transpose(f(a, spread'(b)))", &transpose_after_elemwise},
    {"transpose_after_reduce", "sum(transpose(a), axes) -> sum(a, permuted axes)", &transpose_after_reduce},
    {"transpose_after_sum_to_like", "sum_to_like(transpose(g), like) -> transpose(sum_to_like(g, like'))",
     &transpose_after_sum_to_like},
    {"count_before_transpose", "reduce_count(transpose(a), axes) -> reduce_count(a, permuted axes)",
     &count_before_transpose},
    {"transpose_after_batch_norm",
     "batch_norm_train(transpose(x)) -> transpose(batch_norm_train(x)) over the permuted channel axis; its gradient "
     "alike",
     &transpose_after_batch_norm},
};

}  // namespace

std::span<const LocalRewrite> conv_layout_rules() { return kRules; }

bool conv_layout(Graph& graph, const PassContext& ctx) {
  return rewrite_to_fixed_point(graph, conv_layout_rules(), "conv_layout", ctx);
}

}  // namespace tgc
