// Axis handling shared by every reduction (CAReduce, Mean, Argmax/Argmin, LogSumExp):
// canonical axes, static and concrete output shapes, and the index plan a host loop folds by.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/shape.h"
#include "runtime/strided_loop.h"
#include "runtime/tensor.h"
#include "runtime/type.h"

namespace tgc {

// Reduced axes in canonical form: sorted, unique, non-negative; nullopt means every axis.
using ReduceAxes = std::optional<std::vector<int>>;

// Turns user axes (negative allowed) into canonical form for an input of rank `ndim`.
// Out-of-range axes are a ShapeError and repeated ones a ValueError, both naming `what`
// (the user's function, e.g. "sum"). A list that covers every axis becomes nullopt, so
// x.sum() and x.sum({0, 1}) of a matrix are the same op. A 0-d input accepts axis 0/-1
// (as NumPy does), which is "every axis" of it.
ReduceAxes normalize_reduce_axes(const std::optional<std::vector<int>>& axes, int ndim,
                                 const std::string& what);

// One axis of a rank-`ndim` input, negative allowed (normalize_axis), except that a 0-d
// input also accepts 0 and -1 (as NumPy's reductions do), giving 0.
int normalize_reduce_axis(int axis, int ndim, const std::string& what);

// Throws InternalError unless `axes` is canonical (ops take canonical axes only).
void check_canonical_axes(const ReduceAxes& axes, const std::string& op_name);

// Throws ShapeError when a canonical axis does not exist in a rank-`ndim` input (an op
// built for one rank and applied to another).
void check_axes_fit(const ReduceAxes& axes, int ndim, const std::string& what);

// "axis=[0, 2]" for a list; "" for nullopt. Used in op names like "Sum{axis=[0, 2]}".
std::string axes_param(const ReduceAxes& axes);
// Joins non-empty params as "{a, b}", or "" when there are none.
std::string brace_params(const std::vector<std::string>& params);

// Whether axis d of a rank-`ndim` input is reduced.
std::vector<bool> reduced_mask(const ReduceAxes& axes, int ndim);

// The static output dims: kept dims copied (unknown stays unknown), reduced dims dropped,
// or kept as 1 with keepdims.
std::vector<int64_t> reduced_dims(const std::vector<int64_t>& dims, const ReduceAxes& axes,
                                  bool keepdims);
// Whether some reduced dim is statically known to be 0 (an empty reduction).
bool reduces_known_empty(const Type& in, const ReduceAxes& axes);

// How a host loop visits a reduction. acc_strides is indexed by input dim: the output
// element's C-order position moves with kept dims and stays put along reduced ones (0),
// so strided_loop(in.shape(), {in.strides(), acc_strides}) hands each input element its
// accumulator slot. red_strides numbers the reduced positions of one output element in C
// order (0 along kept dims): the flat index Argmax returns.
struct ReducePlan {
  Shape out_shape;      // with or without the kept 1s, as the op returns it
  Strides acc_strides;  // per input dim
  Strides red_strides;  // per input dim
  int64_t out_numel = 0;
  int64_t reduced_count = 0;  // elements folded into each output element
};
ReducePlan make_reduce_plan(const Shape& in_shape, const ReduceAxes& axes, bool keepdims);

// Visits every element of `in` (dtype T) in C order with (accumulator slot, element).
template <typename T, typename Fn>
void fold_elements(const Tensor& in, const ReducePlan& plan, Fn&& fn) {
  const T* p = in.data<T>();
  strided_loop(in.shape(), {in.strides(), plan.acc_strides},
               [&](const int64_t* off) { fn(off[1], p[off[0]]); });
}

// Same, also handing over the element's position within its reduced subspace (C order).
template <typename T, typename Fn>
void fold_elements_indexed(const Tensor& in, const ReducePlan& plan, Fn&& fn) {
  const T* p = in.data<T>();
  strided_loop(in.shape(), {in.strides(), plan.acc_strides, plan.red_strides},
               [&](const int64_t* off) { fn(off[1], off[2], p[off[0]]); });
}

}  // namespace tgc
