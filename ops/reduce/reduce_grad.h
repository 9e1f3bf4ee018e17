// Graph-building pieces the gradient rules of reductions share (CAReduce, Mean, and in
// ops/nn LogSumExp, Softmax): putting reduced axes back into a gradient, broadcasting it to
// the input's runtime shape, summing along axes, and the runtime reduced-element count.
#pragma once

#include <vector>

#include "ops/core/variable.h"
#include "ops/reduce/reduce_axes.h"

namespace tgc::reduce_grad {

// `v`, the result (or gradient of the result) of a reduction of a rank-`ndim` tensor over
// canonical `axes`, in keepdims form: the reduced axes put back as size-1 axes by a
// DimShuffle, so it broadcasts against the input. `v` itself when `keepdims` was set, and
// when every axis was reduced (a 0-d v broadcasts against the input just as well).
VarPtr keepdims_form(const VarPtr& v, const ReduceAxes& axes, int ndim, bool keepdims);

// `g` (which must broadcast against `like`) broadcast to like's runtime shape — a Fill
// node, so it works when like's dims are only known when the function runs — and cast to
// like's dtype.
VarPtr broadcast_like(const VarPtr& g, const VarPtr& like);

// sum(x, axes, keepdims) as a CAReduce node; `axes` may be negative (normalized here).
VarPtr sum_axes(const VarPtr& x, const std::vector<int>& axes, bool keepdims);

// The number of elements each output element of a reduction of `x` over canonical `axes`
// folds, as a 0-d tensor of `dtype`: a constant when the reduced dims are statically known,
// otherwise a ReduceCount node reading x's runtime shape.
VarPtr reduced_count(const VarPtr& x, const ReduceAxes& axes, DType dtype);

}  // namespace tgc::reduce_grad
