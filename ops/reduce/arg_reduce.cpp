// Argmax / Argmin: type rules and the reference host evaluation.
#include "ops/reduce/arg_reduce.h"

#include <cmath>
#include <type_traits>

#include <fmt/format.h>

#include "ops/reduce/reduce_axes.h"

namespace tgc {

ArgReduce::ArgReduce(ArgKind kind, std::optional<int> axis, bool keepdims)
    : kind_(kind), axis_(axis), keepdims_(keepdims) {
  TGC_INTERNAL_CHECK(!axis_ || *axis_ >= 0, "ArgReduce built with a negative axis; normalize_axis first");
}

std::string ArgReduce::name() const {
  return std::string(kind_ == ArgKind::Argmax ? "Argmax" : "Argmin") +
         brace_params({axis_ ? "axis=" + std::to_string(*axis_) : "", keepdims_ ? "keepdims=True" : ""});
}

// The axis as a reduction: one axis, or all of them. Axis 0 of a 0-d tensor (which NumPy
// accepts) is all of its axes.
std::optional<std::vector<int>> ArgReduce::reduce_axes(int ndim) const {
  if (!axis_ || ndim == 0) return std::nullopt;
  check_axes_fit(std::vector<int>{*axis_}, ndim, user_name());
  return std::vector<int>{*axis_};
}

void ArgReduce::check_not_empty(int64_t reduced_count) const {
  if (reduced_count != 0) return;
  throw ValueError(fmt::format("{}: attempt to get {} of an empty sequence", user_name(), user_name()), "",
                   "the reduced axis has length 0, so there is no element to point at; check the input's shape");
}

std::vector<Type> ArgReduce::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, name() + " takes one input");
  const Type& in = inputs[0];
  ReduceAxes axes = reduce_axes(in.ndim());
  if (reduces_known_empty(in, axes)) check_not_empty(0);
  return {Type(DType::Int64, reduced_dims(in.shape, axes, keepdims_))};
}

std::vector<Shape> ArgReduce::infer_shapes(const std::vector<Shape>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, name() + " takes one input");
  ReducePlan plan = make_reduce_plan(inputs[0], reduce_axes(static_cast<int>(inputs[0].size())), keepdims_);
  check_not_empty(plan.reduced_count);
  return {plan.out_shape};
}

namespace {

// `better(v, best)`: whether v replaces the best so far. Elements of one output arrive in
// increasing index order (C order), so taking only strictly better ones keeps the first.
template <typename T>
void arg_fold(const Tensor& x, const ReducePlan& plan, bool is_max, int64_t* out) {
  std::vector<T> best(plan.out_numel);
  auto better = [is_max](T v, T b) {
    if constexpr (is_float_type_v<T>) {
      if (std::isnan(b)) return false;  // the first NaN stays
      if (std::isnan(v)) return true;
    }
    return is_max ? v > b : v < b;
  };
  fold_elements_indexed<T>(x, plan, [&](int64_t k, int64_t r, T v) {
    if (r == 0 || better(v, best[k])) {
      best[k] = v;
      out[k] = r;
    }
  });
}

}  // namespace

void ArgReduce::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& x = inputs.at(0);
  ReducePlan plan = make_reduce_plan(x.shape(), reduce_axes(x.ndim()), keepdims_);
  check_not_empty(plan.reduced_count);
  Tensor& out = ensure_output(outputs.at(0), DType::Int64, plan.out_shape);
  int64_t* o = out.data<int64_t>();
  dispatch_dtype(x.dtype(), [&]<typename T>() {
    if constexpr (std::is_same_v<T, bool>) {
      // std::vector<bool> is packed: fold over uint8 copies of the values instead.
      arg_fold<uint8_t>(x.astype(DType::UInt8), plan, kind_ == ArgKind::Argmax, o);
    } else {
      arg_fold<T>(x, plan, kind_ == ArgKind::Argmax, o);
    }
  });
}

}  // namespace tgc
