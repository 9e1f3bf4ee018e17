// canonicalize's shape rules: reshapes, dimshuffles, allocations and fills that change
// nothing, and the run-time-shape ops (x.shape, arange(x.shape[i]), and gradients'
// ReduceCount, ReshapeLike, SplitLike) turned into constants or plain static ops where the shapes are known. "Known" is the
// static type's, or ShapeEquivalence's (env.shapes: what the shape facts of shared variables
// give, docs/optimizations.md#shape-facts). SumToLike and the fill rules that compare
// symbolic dims are in canonicalize_broadcast.cpp.
#include "compiler/passes/canonicalize_rules.h"
#include "ops/alloc/alloc.h"
#include "ops/alloc/arange.h"
#include "ops/alloc/arange_like.h"
#include "ops/core/apply.h"
#include "ops/gradient/stop_gradient.h"
#include "ops/join/split.h"
#include "ops/join/split_like.h"
#include "ops/reduce/reduce_count.h"
#include "ops/shape/dimshuffle.h"
#include "ops/shape/flatten.h"
#include "ops/shape/reshape.h"
#include "ops/shape/reshape_like.h"
#include "ops/shape/shape_of.h"
#include "runtime/convert.h"

namespace tgc::canon {

namespace {

template <typename O>
const O* op_of(const Node& n) {
  return dynamic_cast<const O*>(&n.op());
}

bool is_identity_pattern(const std::vector<int>& pattern, int ndim) {
  if (static_cast<int>(pattern.size()) != ndim) return false;
  for (int i = 0; i < ndim; ++i)
    if (pattern[i] != i) return false;
  return true;
}

}  // namespace

// A target equal to x's static shape, where a -1 stands for the one dim it resolves to.
std::vector<VarPtr> useless_reshape(Node& n, const RewriteEnv& env) {
  const auto* r = op_of<Reshape>(n);
  if (!r) return {};
  const VarPtr& x = n.inputs()[0];
  const Shape& target = r->target();
  if (static_cast<int>(target.size()) != x->type().ndim()) return {};
  const std::vector<std::optional<int64_t>> dims = env.shapes.known_dims(*x);
  bool free = false;
  int64_t known = 1;
  for (size_t d = 0; d < target.size(); ++d) {
    if (target[d] == -1) {
      free = true;
      continue;
    }
    if (dims[d] != target[d]) return {};
    known *= target[d];
  }
  if (free && known == 0) return {};  // the -1 cannot be resolved: keep the reshape's error
  return {x};
}

// Flatten{ndim} keeps the first ndim - 1 axes and merges the rest: with x.ndim axes, nothing.
std::vector<VarPtr> useless_flatten(Node& n, const RewriteEnv&) {
  const auto* f = op_of<Flatten>(n);
  if (!f || f->ndim() != n.inputs()[0]->type().ndim()) return {};
  return {n.inputs()[0]};
}

std::vector<VarPtr> identity_dimshuffle(Node& n, const RewriteEnv&) {
  const auto* ds = op_of<DimShuffle>(n);
  if (!ds || !is_identity_pattern(ds->pattern(), n.inputs()[0]->type().ndim())) return {};
  return {n.inputs()[0]};
}

// Output axis i of the outer shuffle is inner axis q[i], which is x's axis p[q[i]].
std::vector<VarPtr> dimshuffle_dimshuffle(Node& n, const RewriteEnv&) {
  const auto* outer = op_of<DimShuffle>(n);
  Node* in = n.inputs()[0]->owner();
  const auto* inner = in ? op_of<DimShuffle>(*in) : nullptr;
  if (!outer || !inner) return {};
  const VarPtr& x = in->inputs()[0];
  std::vector<int> pattern;
  for (int q : outer->pattern()) pattern.push_back(q == -1 ? -1 : inner->pattern()[q]);
  if (is_identity_pattern(pattern, x->type().ndim())) return {x};
  return {apply1(std::make_shared<DimShuffle>(pattern, outer->user_name()), {x})};
}

std::vector<VarPtr> useless_alloc(Node& n, const RewriteEnv& env) {
  const auto* a = op_of<Alloc>(n);
  if (!a || env.shapes.known_shape(*n.inputs()[0]) != a->shape()) return {};
  return {n.inputs()[0]};
}

// The like's values were never read; with a known shape its expression is not needed either.
std::vector<VarPtr> fill_to_alloc(Node& n, const RewriteEnv& env) {
  if (!op_of<Fill>(n)) return {};
  const std::optional<Shape> out = env.shapes.known_shape(*n.output_raw(0));
  if (!out) return {};
  return {apply1(std::make_shared<Alloc>(*out), {n.inputs()[1]})};
}

std::vector<VarPtr> static_reduce_count(Node& n, const RewriteEnv& env) {
  const auto* rc = op_of<ReduceCount>(n);
  if (!rc) return {};
  const std::vector<std::optional<int64_t>> dims = env.shapes.known_dims(*n.inputs()[0]);
  const int ndim = static_cast<int>(dims.size());
  std::vector<bool> reduced = reduced_mask(rc->axes(), ndim);
  int64_t count = 1;
  bool known = true;
  for (int d = 0; d < ndim; ++d) {
    if (!reduced[d]) continue;
    if (dims[d] == 0) return {scalar_constant(0, rc->dtype())};
    if (!dims[d]) known = false;
    else count *= *dims[d];
  }
  if (!known) return {};
  Tensor value = Tensor::empty(rc->dtype(), {});
  dispatch_dtype(rc->dtype(), [&]<typename T>() { value.data<T>()[0] = convert_value<T>(count); });
  return {Variable::constant(value)};
}

std::vector<VarPtr> static_shape_of(Node& n, const RewriteEnv& env) {
  if (!op_of<ShapeOf>(n)) return {};
  const std::optional<Shape> shape = env.shapes.known_shape(*n.inputs()[0]);
  if (!shape) return {};
  return {Variable::constant(Tensor::from_vector(std::vector<int64_t>(shape->begin(), shape->end())))};
}

std::vector<VarPtr> static_arange_like(Node& n, const RewriteEnv& env) {
  const auto* a = op_of<ArangeLike>(n);
  if (!a) return {};
  const std::optional<int64_t> size = env.shapes.known_dims(*n.inputs()[0]).at(a->axis());
  if (!size) return {};
  return {apply1(std::make_shared<Arange>(0, static_cast<double>(*size), 1, DType::Int64), {})};
}

std::vector<VarPtr> static_reshape_like(Node& n, const RewriteEnv& env) {
  if (!op_of<ReshapeLike>(n)) return {};  // before reading input 1: other ops may have one input
  const std::optional<Shape> like = env.shapes.known_shape(*n.inputs()[1]);
  if (!like) return {};
  return {apply1(std::make_shared<Reshape>(*like), {n.inputs()[0]})};
}

std::vector<VarPtr> static_split_like(Node& n, const RewriteEnv& env) {
  const auto* sl = op_of<SplitLike>(n);
  if (!sl) return {};
  const VarPtr& x = n.inputs()[0];
  const int axis = normalize_axis(sl->axis(), x->type().ndim(), "split_like");
  std::vector<int64_t> sizes;
  for (size_t i = 1; i < n.inputs().size(); ++i) {
    const std::optional<int64_t> s = env.shapes.known_dims(*n.inputs()[i])[static_cast<size_t>(axis)];
    if (!s) return {};
    sizes.push_back(*s);
  }
  return tgc::apply(std::make_shared<Split>(axis, std::move(sizes)), {x});
}

std::vector<VarPtr> useless_stop_gradient(Node& n, const RewriteEnv&) {
  if (!op_of<StopGradient>(n)) return {};
  return {n.inputs()[0]};
}

}  // namespace tgc::canon
