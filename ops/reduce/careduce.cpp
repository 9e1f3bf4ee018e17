// CAReduce: type rules and the reference host evaluation of sum, prod, max, min, all, any.
#include "ops/reduce/careduce.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

namespace tgc {

std::string reduce_kind_name(ReduceKind kind) {
  switch (kind) {
    case ReduceKind::Sum: return "Sum";
    case ReduceKind::Prod: return "Prod";
    case ReduceKind::Max: return "Max";
    case ReduceKind::Min: return "Min";
    case ReduceKind::All: return "All";
    case ReduceKind::Any: return "Any";
  }
  return "?";
}

DType careduce_output_dtype(ReduceKind kind, DType in) {
  switch (kind) {
    case ReduceKind::Sum:
    case ReduceKind::Prod: return is_float(in) ? in : DType::Int64;
    case ReduceKind::Max:
    case ReduceKind::Min: return in;
    case ReduceKind::All:
    case ReduceKind::Any: return DType::Bool;
  }
  return in;
}

CAReduce::CAReduce(ReduceKind kind, ReduceAxes axes, bool keepdims, bool identity_when_empty)
    : kind_(kind), axes_(std::move(axes)), keepdims_(keepdims), identity_when_empty_(identity_when_empty) {
  check_canonical_axes(axes_, reduce_kind_name(kind_));
  TGC_INTERNAL_CHECK(!identity_when_empty_ || kind_ == ReduceKind::Max || kind_ == ReduceKind::Min,
                     "identity_when_empty is for max and min (the others have an identity already)");
}

std::string CAReduce::name() const {
  return reduce_kind_name(kind_) + brace_params({axes_param(axes_), keepdims_ ? "keepdims=True" : "",
                                                 identity_when_empty_ ? "empty=identity" : ""});
}

std::string CAReduce::user_name() const {
  switch (kind_) {
    case ReduceKind::Sum: return "sum";
    case ReduceKind::Prod: return "prod";
    case ReduceKind::Max: return "max";
    case ReduceKind::Min: return "min";
    case ReduceKind::All: return "all";
    case ReduceKind::Any: return "any";
  }
  return "?";
}

void CAReduce::check_not_empty(int64_t reduced_count) const {
  if (reduced_count != 0 || identity_when_empty_ || (kind_ != ReduceKind::Max && kind_ != ReduceKind::Min)) return;
  throw ValueError(fmt::format("{}: zero-size array to reduction operation {} which has no identity",
                               user_name(), user_name()),
                   "", "a reduced axis has length 0; max/min of nothing is undefined (sum and prod are not: "
                       "they give 0 and 1), so check the input's shape or reduce over other axes");
}

std::vector<Type> CAReduce::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, name() + " takes one input");
  const Type& in = inputs[0];
  check_axes_fit(axes_, in.ndim(), user_name());
  if (reduces_known_empty(in, axes_)) check_not_empty(0);
  return {Type(careduce_output_dtype(kind_, in.dtype), reduced_dims(in.shape, axes_, keepdims_))};
}

std::vector<Shape> CAReduce::infer_shapes(const std::vector<Shape>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, name() + " takes one input");
  check_axes_fit(axes_, static_cast<int>(inputs[0].size()), user_name());
  ReducePlan plan = make_reduce_plan(inputs[0], axes_, keepdims_);
  check_not_empty(plan.reduced_count);
  return {plan.out_shape};
}

namespace {

// Sum and prod accumulate floats in double (more accurate than NumPy's pairwise float32
// summation, so float32 results can differ from NumPy's in the last bits) and integers in
// uint64, whose wrap-around equals NumPy's int64 overflow without C++'s signed-overflow UB.
template <typename T>
void sum_or_prod(const Tensor& x, const ReducePlan& plan, bool is_sum, Tensor& out) {
  using Acc = std::conditional_t<is_float_type_v<T>, double, uint64_t>;
  std::vector<Acc> acc(plan.out_numel, is_sum ? Acc(0) : Acc(1));
  auto widen = [](T v) -> Acc {
    if constexpr (is_float_type_v<T>) return static_cast<double>(v);
    else return static_cast<uint64_t>(static_cast<int64_t>(v));  // sign-extends negatives
  };
  if (is_sum) fold_elements<T>(x, plan, [&](int64_t k, T v) { acc[k] += widen(v); });
  else fold_elements<T>(x, plan, [&](int64_t k, T v) { acc[k] *= widen(v); });
  if constexpr (is_float_type_v<T>) {
    T* o = out.data<T>();
    for (int64_t i = 0; i < plan.out_numel; ++i) o[i] = static_cast<T>(acc[i]);
  } else {
    int64_t* o = out.data<int64_t>();
    for (int64_t i = 0; i < plan.out_numel; ++i) o[i] = static_cast<int64_t>(acc[i]);
  }
}

// Max and min fold straight into the (contiguous, C-order) output. A NaN wins and stays,
// as in NumPy: `v > a` is false for a NaN accumulator, and a NaN element is taken.
template <typename T>
void max_or_min(const Tensor& x, const ReducePlan& plan, bool is_max, Tensor& out) {
  T* o = out.data<T>();
  T init;
  if constexpr (is_float_type_v<T>)
    init = is_max ? T(-static_cast<double>(std::numeric_limits<T>::infinity()))
                  : std::numeric_limits<T>::infinity();
  else
    init = is_max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  for (int64_t i = 0; i < plan.out_numel; ++i) o[i] = init;
  auto take = [](T v) {
    if constexpr (is_float_type_v<T>) return std::isnan(v);
    else return false;
  };
  if (is_max)
    fold_elements<T>(x, plan, [&](int64_t k, T v) { if (v > o[k] || take(v)) o[k] = v; });
  else
    fold_elements<T>(x, plan, [&](int64_t k, T v) { if (v < o[k] || take(v)) o[k] = v; });
}

// All and any test each element against zero (a NaN is true, as in NumPy).
template <typename T>
void all_or_any(const Tensor& x, const ReducePlan& plan, bool is_all, Tensor& out) {
  bool* o = out.data<bool>();
  for (int64_t i = 0; i < plan.out_numel; ++i) o[i] = is_all;
  if (is_all) fold_elements<T>(x, plan, [&](int64_t k, T v) { o[k] = o[k] && v != T(0); });
  else fold_elements<T>(x, plan, [&](int64_t k, T v) { o[k] = o[k] || v != T(0); });
}

}  // namespace

void CAReduce::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& x = inputs.at(0);
  check_axes_fit(axes_, x.ndim(), user_name());
  ReducePlan plan = make_reduce_plan(x.shape(), axes_, keepdims_);
  check_not_empty(plan.reduced_count);
  Tensor& out = ensure_output(outputs.at(0), careduce_output_dtype(kind_, x.dtype()), plan.out_shape);
  dispatch_dtype(x.dtype(), [&]<typename T>() {
    switch (kind_) {
      case ReduceKind::Sum: sum_or_prod<T>(x, plan, true, out); return;
      case ReduceKind::Prod: sum_or_prod<T>(x, plan, false, out); return;
      case ReduceKind::Max: max_or_min<T>(x, plan, true, out); return;
      case ReduceKind::Min: max_or_min<T>(x, plan, false, out); return;
      case ReduceKind::All: all_or_any<T>(x, plan, true, out); return;
      case ReduceKind::Any: all_or_any<T>(x, plan, false, out); return;
    }
  });
}

}  // namespace tgc
