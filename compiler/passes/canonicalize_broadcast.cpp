// canonicalize's broadcast rules: the SumToLike and Fill nodes of gradients removed or made
// static where ShapeEquivalence proves what they do at run time (an identity, a fixed set of
// summed axes, a broadcast the reading elemwise does anyway).
#include "compiler/passes/canonicalize_rules.h"
#include "ops/alloc/alloc.h"
#include "ops/core/apply.h"
#include "ops/gradient/sum_to_like.h"
#include "ops/reduce/careduce.h"
#include "ops/shape/dimshuffle.h"

namespace tgc::canon {

std::vector<VarPtr> useless_sum_to_like(Node& n, const RewriteEnv& env) {
  if (!dynamic_cast<const SumToLike*>(&n.op())) return {};
  const VarPtr& g = n.inputs()[0];
  if (!env.shapes.same_shape(*g, *n.inputs()[1])) return {};
  return {g};
}

// Which axes SumToLike sums is fixed when, along every axis of g, like lacks it (a leading
// axis), has a known 1 there, or provably has g's size: then it is a plain sum over those
// axes, which fusion folds into a reduction kernel with its prologue.
std::vector<VarPtr> sum_to_like_to_sum(Node& n, const RewriteEnv& env) {
  if (!dynamic_cast<const SumToLike*>(&n.op())) return {};
  const VarPtr& g = n.inputs()[0];
  const VarPtr& like = n.inputs()[1];
  const std::vector<DimId> gd = env.shapes.dims(*g);
  const std::vector<DimId> ld = env.shapes.dims(*like);
  const int rank = static_cast<int>(gd.size()), lead = rank - static_cast<int>(ld.size());
  if (lead < 0) return {};
  std::vector<int> axes;
  bool ones = false;  // some summed axis stays as a 1 in the result
  for (int d = 0; d < rank; ++d) {
    if (d < lead) {
      axes.push_back(d);
      continue;
    }
    const DimId l = ld[d - lead];
    if (l == gd[d]) continue;
    if (env.shapes.known(l) != 1) return {};  // summed or not depends on the run
    axes.push_back(d);
    ones = true;
  }
  if (axes.empty()) return {};  // the identity: useless_sum_to_like's case
  const bool keepdims = ones;
  ReduceAxes canonical = normalize_reduce_axes(axes, rank, "sum_to_like");
  VarPtr out = apply1(std::make_shared<CAReduce>(ReduceKind::Sum, canonical, keepdims), {g});
  if (keepdims && lead > 0) {  // drop the leading axes, now of size 1
    std::vector<int> pattern;
    for (int d = lead; d < rank; ++d) pattern.push_back(d);
    out = apply1(std::make_shared<DimShuffle>(pattern), {out});
  }
  if (!interchangeable(n.output_raw(0)->type(), out->type())) return {};
  return {out};
}

// fill(like, v) is v when v provably has the fill's shape already (like's dims are v's, or 1).
std::vector<VarPtr> useless_fill(Node& n, const RewriteEnv& env) {
  if (!dynamic_cast<const Fill*>(&n.op())) return {};
  const VarPtr& v = n.inputs()[1];
  if (!env.shapes.same_shape(*n.output_raw(0), *v)) return {};
  return {v};
}

// An elemwise reading fill(like, v) or alloc(v, shape) reads v instead when its other
// operands give the output the same shape without the fill: the broadcast it does anyway
// stretches v (Theano's local_elemwise_alloc). zeros_like(a) * 0.01 + b stays a kernel.
std::vector<VarPtr> fill_into_elemwise(Node& n, const RewriteEnv& env) {
  if (!dynamic_cast<const Elemwise*>(&n.op())) return {};
  const std::vector<VarPtr>& in = n.inputs();
  for (size_t i = 0; i < in.size(); ++i) {
    const Node* f = in[i]->owner();
    if (!f) continue;
    VarPtr value;
    if (dynamic_cast<const Fill*>(&f->op())) value = f->inputs()[1];
    else if (dynamic_cast<const Alloc*>(&f->op())) value = f->inputs()[0];
    else continue;
    std::vector<VarPtr> inputs = in;
    inputs[i] = value;
    std::vector<std::vector<DimId>> shapes;
    for (const VarPtr& x : inputs) shapes.push_back(env.shapes.dims(*x));
    std::vector<const std::vector<DimId>*> ptrs;
    for (const auto& s : shapes) ptrs.push_back(&s);
    if (env.shapes.broadcast(ptrs) != env.shapes.dims(*n.output_raw(0))) continue;
    VarPtr out = apply1(n.op_ptr(), std::move(inputs));
    if (!interchangeable(n.output_raw(0)->type(), out->type())) continue;
    return {out};
  }
  return {};
}

}  // namespace tgc::canon
