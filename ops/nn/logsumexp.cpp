// LogSumExp: type rules and the stable reference evaluation.
#include "ops/nn/logsumexp.h"

#include <cmath>
#include <limits>

namespace tgc {

LogSumExp::LogSumExp(ReduceAxes axes, bool keepdims, DType floatx)
    : axes_(std::move(axes)), keepdims_(keepdims), floatx_(floatx) {
  check_canonical_axes(axes_, "LogSumExp");
  TGC_INTERNAL_CHECK(is_float(floatx_), "LogSumExp built with a non-float floatX");
}

std::string LogSumExp::name() const {
  return "LogSumExp" + brace_params({axes_param(axes_), keepdims_ ? "keepdims=True" : "",
                                     floatx_ == DType::Float32 ? "" : "floatX=" + std::string(dtype_name(floatx_))});
}

std::vector<Type> LogSumExp::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, "LogSumExp takes one input");
  check_axes_fit(axes_, inputs[0].ndim(), user_name());
  return {Type(float_of(inputs[0].dtype, floatx_), reduced_dims(inputs[0].shape, axes_, keepdims_))};
}

std::vector<Shape> LogSumExp::infer_shapes(const std::vector<Shape>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, "LogSumExp takes one input");
  check_axes_fit(axes_, static_cast<int>(inputs[0].size()), user_name());
  return {make_reduce_plan(inputs[0], axes_, keepdims_).out_shape};
}

void LogSumExp::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& x = inputs.at(0);
  check_axes_fit(axes_, x.ndim(), user_name());
  ReducePlan plan = make_reduce_plan(x.shape(), axes_, keepdims_);
  std::vector<double> shift(plan.out_numel, -std::numeric_limits<double>::infinity());
  std::vector<double> sum(plan.out_numel, 0.0);
  dispatch_dtype(x.dtype(), [&]<typename T>() {
    fold_elements<T>(x, plan, [&](int64_t k, T v) {
      double d = static_cast<double>(v);
      if (d > shift[k] || std::isnan(d)) shift[k] = d;
    });
    for (double& m : shift)
      if (!std::isfinite(m)) m = 0.0;  // NaN stays NaN through the sum below
    fold_elements<T>(x, plan, [&](int64_t k, T v) { sum[k] += std::exp(static_cast<double>(v) - shift[k]); });
  });
  Tensor& out = ensure_output(outputs.at(0), float_of(x.dtype(), floatx_), plan.out_shape);
  dispatch_dtype(out.dtype(), [&]<typename O>() {
    if constexpr (std::is_floating_point_v<O>) {
      O* o = out.data<O>();
      for (int64_t i = 0; i < plan.out_numel; ++i) o[i] = static_cast<O>(std::log(sum[i]) + shift[i]);
    } else {
      TGC_INTERNAL_CHECK(false, "LogSumExp produced a non-float dtype");
    }
  });
}

}  // namespace tgc
