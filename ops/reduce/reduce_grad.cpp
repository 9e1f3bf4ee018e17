// Shared pieces of the reductions' gradient rules.
#include "ops/reduce/reduce_grad.h"

#include <memory>

#include "ops/alloc/alloc.h"
#include "ops/core/apply.h"
#include "ops/gradient/build.h"
#include "ops/reduce/careduce.h"
#include "ops/reduce/reduce_count.h"
#include "ops/shape/dimshuffle.h"

namespace tgc::reduce_grad {

VarPtr keepdims_form(const VarPtr& v, const ReduceAxes& axes, int ndim, bool keepdims) {
  if (keepdims) return v;
  std::vector<bool> mask = reduced_mask(axes, ndim);
  std::vector<int> pattern;
  pattern.reserve(ndim);
  int next = 0;
  for (int d = 0; d < ndim; ++d) pattern.push_back(mask[d] ? -1 : next++);
  if (next == ndim) return v;  // nothing was reduced
  // Everything was reduced: v is 0-d, which broadcasts against x as its all-ones form would
  // (every rule combines it with x-shaped values), and stays a 0-d constant that fusion folds
  // into a kernel (DimShuffle{x}(1.0) became a (1,)-shaped constant: a kernel operand, a
  // transfer on a GPU).
  if (next == 0) return v;
  return apply1(std::make_shared<DimShuffle>(std::move(pattern)), {v});
}

VarPtr broadcast_like(const VarPtr& g, const VarPtr& like) {
  // Fill's result takes g's dtype; the gradient must have like's.
  VarPtr filled = apply1(std::make_shared<Fill>(), {like, g});
  return gradient::cast(filled, like->type().dtype);
}

VarPtr sum_axes(const VarPtr& x, const std::vector<int>& axes, bool keepdims) {
  ReduceAxes canonical = normalize_reduce_axes(axes, x->type().ndim(), "sum");
  return apply1(std::make_shared<CAReduce>(ReduceKind::Sum, std::move(canonical), keepdims), {x});
}

VarPtr reduced_count(const VarPtr& x, const ReduceAxes& axes, DType dtype) {
  const Type& t = x->type();
  std::vector<bool> mask = reduced_mask(axes, t.ndim());
  int64_t count = 1;
  for (int d = 0; d < t.ndim(); ++d) {
    if (!mask[d]) continue;
    if (t.shape[d] == kUnknownDim) return apply1(std::make_shared<ReduceCount>(axes, dtype), {x});
    count *= t.shape[d];
  }
  return Variable::constant(Tensor::scalar(static_cast<double>(count)).astype(dtype));
}

}  // namespace tgc::reduce_grad
