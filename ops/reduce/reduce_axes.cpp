// Canonical reduction axes, output shapes and the fold plan of host reductions.
#include "ops/reduce/reduce_axes.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runtime/error.h"

namespace tgc {

int normalize_reduce_axis(int axis, int ndim, const std::string& what) {
  if (ndim == 0 && (axis == 0 || axis == -1)) return 0;
  if (ndim == 0)
    throw ShapeError(fmt::format("{}: axis {} is out of bounds for a 0-d tensor", what, axis), "",
                     "a 0-d tensor accepts only axis 0 or -1 (or none)");
  return normalize_axis(axis, ndim, what);
}

ReduceAxes normalize_reduce_axes(const std::optional<std::vector<int>>& axes, int ndim,
                                 const std::string& what) {
  if (!axes) return std::nullopt;
  std::vector<int> out;
  out.reserve(axes->size());
  for (int a : *axes) out.push_back(normalize_reduce_axis(a, ndim, what));
  if (ndim == 0) return std::nullopt;  // axis 0/-1 of a 0-d tensor: all of its (no) axes
  std::vector<int> sorted = out;
  std::sort(sorted.begin(), sorted.end());
  auto dup = std::adjacent_find(sorted.begin(), sorted.end());
  if (dup != sorted.end())
    throw ValueError(fmt::format("{}: duplicate value in 'axis': axis {} is named twice in [{}] for a {}-d tensor",
                                 what, *dup, fmt::join(*axes, ", "), ndim),
                     "", "name each axis once; negative axes count from the end (-1 is axis " +
                             std::to_string(ndim - 1) + ")");
  if (static_cast<int>(sorted.size()) == ndim) return std::nullopt;
  return sorted;
}

void check_canonical_axes(const ReduceAxes& axes, const std::string& op_name) {
  if (!axes) return;
  for (size_t i = 0; i < axes->size(); ++i) {
    TGC_INTERNAL_CHECK((*axes)[i] >= 0, op_name + " built with a negative axis; normalize_reduce_axes first");
    TGC_INTERNAL_CHECK(i == 0 || (*axes)[i - 1] < (*axes)[i],
                       op_name + " built with unsorted or repeated axes; normalize_reduce_axes first");
  }
}

void check_axes_fit(const ReduceAxes& axes, int ndim, const std::string& what) {
  if (!axes) return;
  for (int a : *axes)
    if (a >= ndim)
      throw ShapeError(fmt::format("{}: axis {} is out of bounds for a {}-d tensor", what, a, ndim), "",
                       fmt::format("valid axes are {} .. {}", -ndim, ndim - 1));
}

std::string axes_param(const ReduceAxes& axes) {
  if (!axes) return "";
  return fmt::format("axis=[{}]", fmt::join(*axes, ", "));
}

std::string brace_params(const std::vector<std::string>& params) {
  std::vector<std::string> kept;
  for (const auto& p : params)
    if (!p.empty()) kept.push_back(p);
  if (kept.empty()) return "";
  return fmt::format("{{{}}}", fmt::join(kept, ", "));
}

std::vector<bool> reduced_mask(const ReduceAxes& axes, int ndim) {
  std::vector<bool> mask(ndim, !axes.has_value());
  if (axes)
    for (int a : *axes) mask[a] = true;
  return mask;
}

std::vector<int64_t> reduced_dims(const std::vector<int64_t>& dims, const ReduceAxes& axes,
                                  bool keepdims) {
  std::vector<bool> mask = reduced_mask(axes, static_cast<int>(dims.size()));
  std::vector<int64_t> out;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (!mask[d]) out.push_back(dims[d]);
    else if (keepdims) out.push_back(1);
  }
  return out;
}

bool reduces_known_empty(const Type& in, const ReduceAxes& axes) {
  std::vector<bool> mask = reduced_mask(axes, in.ndim());
  for (int d = 0; d < in.ndim(); ++d)
    if (mask[d] && in.shape[d] == 0) return true;
  return false;
}

ReducePlan make_reduce_plan(const Shape& in_shape, const ReduceAxes& axes, bool keepdims) {
  const int ndim = static_cast<int>(in_shape.size());
  std::vector<bool> mask = reduced_mask(axes, ndim);
  ReducePlan plan;
  plan.out_shape = reduced_dims(in_shape, axes, keepdims);
  plan.acc_strides.assign(ndim, 0);
  plan.red_strides.assign(ndim, 0);
  int64_t acc = 1, red = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    if (mask[d]) {
      plan.red_strides[d] = red;
      red *= in_shape[d];
    } else {
      plan.acc_strides[d] = acc;
      acc *= in_shape[d];
    }
  }
  plan.out_numel = acc;
  plan.reduced_count = red;
  return plan;
}

}  // namespace tgc
