// Gradient rules of the blas family: Dot (its four forms), BatchedDot (stacks, broadcast
// batches, 2-d and 1-d operands) and Outer, each built from the family's own products.
#include <memory>

#include "ops/blas/batched_dot.h"
#include "ops/blas/dot.h"
#include "ops/blas/outer.h"
#include "ops/core/apply.h"
#include "ops/core/node.h"
#include "ops/gradient/build.h"
#include "ops/reduce/reduce_grad.h"
#include "ops/shape/dimshuffle.h"
#include "ops/shape/flatten.h"
#include "ops/shape/reshape_like.h"

namespace tgc {
namespace {

VarPtr dot(const VarPtr& a, const VarPtr& b) { return apply1(std::make_shared<Dot>(), {a, b}); }
VarPtr outer(const VarPtr& a, const VarPtr& b) { return apply1(std::make_shared<Outer>(), {a, b}); }
VarPtr batched_dot(const VarPtr& a, const VarPtr& b) { return apply1(std::make_shared<BatchedDot>(), {a, b}); }
VarPtr dimshuffle(const VarPtr& v, std::vector<int> pattern) {
  return apply1(std::make_shared<DimShuffle>(std::move(pattern)), {v});
}

// The gradient for input `x`, or null when x is not a float (not differentiable); `rule`
// builds it only when needed, then it gets x's dtype.
template <typename Rule>
VarPtr for_input(const VarPtr& x, Rule&& rule) {
  if (!is_float(x->type().dtype)) return nullptr;
  return gradient::cast(rule(), x->type().dtype);
}

// The operand as Outer reads it: its elements in C order as a vector.
VarPtr flat(const VarPtr& v) {
  switch (v->type().ndim()) {
    case 0: return dimshuffle(v, {-1});
    case 1: return v;
    default: return apply1(std::make_shared<Flatten>(1), {v});
  }
}

// A BatchedDot operand as a stack of matrices: 3-d as is, 2-d as a batch of one, 1-d as a
// batch of one row (left operand) or column (right operand).
VarPtr as_stack(const VarPtr& v, bool left) {
  switch (v->type().ndim()) {
    case 3: return v;
    case 2: return dimshuffle(v, {-1, 0, 1});
    default: return left ? dimshuffle(v, {-1, -1, 0}) : dimshuffle(v, {-1, 0, -1});
  }
}

// A stack-shaped gradient (B, r, c) summed back to operand `v`: over the batch entries a
// 3-d operand was broadcast to, over the batch (and the row/column a 1-d operand became)
// for 2-d and 1-d operands.
VarPtr unstack(const VarPtr& g3, const VarPtr& v, bool left) {
  switch (v->type().ndim()) {
    case 3: return gradient::sum_to_like(g3, v);
    case 2: return reduce_grad::sum_axes(g3, {0}, false);
    default: return reduce_grad::sum_axes(g3, {0, left ? 1 : 2}, false);
  }
}

VarPtr transpose_last2(const VarPtr& v) { return dimshuffle(v, {0, 2, 1}); }

}  // namespace

std::vector<VarPtr> Dot::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  const VarPtr& a = node.inputs().at(0);
  const VarPtr& b = node.inputs().at(1);
  const VarPtr& g = output_grads.at(0);
  if (!g) return {nullptr, nullptr};
  const int ra = a->type().ndim(), rb = b->type().ndim();
  auto T = [](const VarPtr& m) { return dimshuffle(m, {1, 0}); };
  VarPtr ga, gb;
  if (ra == 1 && rb == 1) {  // () = (k,).(k,)
    ga = for_input(a, [&] { return gradient::mul(g, b); });
    gb = for_input(b, [&] { return gradient::mul(g, a); });
  } else if (ra == 2 && rb == 1) {  // (m,) = (m, k).(k,)
    ga = for_input(a, [&] { return outer(g, b); });
    gb = for_input(b, [&] { return dot(T(a), g); });
  } else if (ra == 1 && rb == 2) {  // (n,) = (k,).(k, n)
    ga = for_input(a, [&] { return dot(b, g); });
    gb = for_input(b, [&] { return outer(a, g); });
  } else {  // (m, n) = (m, k).(k, n)
    ga = for_input(a, [&] { return dot(g, T(b)); });
    gb = for_input(b, [&] { return dot(T(a), g); });
  }
  return {ga, gb};
}

std::vector<VarPtr> BatchedDot::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  const VarPtr& a = node.inputs().at(0);
  const VarPtr& b = node.inputs().at(1);
  const VarPtr& g = output_grads.at(0);
  if (!g) return {nullptr, nullptr};
  const int ra = a->type().ndim(), rb = b->type().ndim();
  // g as (B, m, n): a 1-d left operand dropped the row axis, a 1-d right one the column axis.
  int next = 1;
  std::vector<int> pattern = {0};
  pattern.push_back(ra >= 2 ? next++ : -1);
  pattern.push_back(rb >= 2 ? next++ : -1);
  VarPtr g3 = (ra >= 2 && rb >= 2) ? g : dimshuffle(g, pattern);
  VarPtr a3 = as_stack(a, true), b3 = as_stack(b, false);
  // Per entry: ga = g . b^T (m, k), gb = a^T . g (k, n); a batch of 1 broadcasts.
  VarPtr ga = for_input(a, [&] { return unstack(batched_dot(g3, transpose_last2(b3)), a, true); });
  VarPtr gb = for_input(b, [&] { return unstack(batched_dot(transpose_last2(a3), g3), b, false); });
  return {ga, gb};
}

std::vector<VarPtr> Outer::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  const VarPtr& x = node.inputs().at(0);
  const VarPtr& y = node.inputs().at(1);
  const VarPtr& g = output_grads.at(0);
  if (!g) return {nullptr, nullptr};
  // g is (x.size, y.size): out[i, j] = x_i y_j, so gx_i = sum_j g_ij y_j and gy_j = sum_i g_ij x_i.
  auto back = [](const VarPtr& flat_grad, const VarPtr& v) {
    return v->type().ndim() == 1 ? flat_grad : apply1(std::make_shared<ReshapeLike>(), {flat_grad, v});
  };
  VarPtr gx = for_input(x, [&] { return back(dot(g, flat(y)), x); });
  VarPtr gy = for_input(y, [&] { return back(dot(flat(x), g), y); });
  return {gx, gy};
}

}  // namespace tgc
