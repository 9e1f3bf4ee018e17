// Mean: type rules and the reference host evaluation.
#include "ops/reduce/mean.h"

#include <limits>

namespace tgc {

Mean::Mean(ReduceAxes axes, bool keepdims, DType floatx)
    : axes_(std::move(axes)), keepdims_(keepdims), floatx_(floatx) {
  check_canonical_axes(axes_, "Mean");
  TGC_INTERNAL_CHECK(is_float(floatx_), "Mean built with a non-float floatX");
}

std::string Mean::name() const {
  return "Mean" + brace_params({axes_param(axes_), keepdims_ ? "keepdims=True" : "",
                                floatx_ == DType::Float32 ? "" : "floatX=" + std::string(dtype_name(floatx_))});
}

std::vector<Type> Mean::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, "Mean takes one input");
  const Type& in = inputs[0];
  check_axes_fit(axes_, in.ndim(), user_name());
  return {Type(float_of(in.dtype, floatx_), reduced_dims(in.shape, axes_, keepdims_))};
}

std::vector<Shape> Mean::infer_shapes(const std::vector<Shape>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, "Mean takes one input");
  check_axes_fit(axes_, static_cast<int>(inputs[0].size()), user_name());
  return {make_reduce_plan(inputs[0], axes_, keepdims_).out_shape};
}

void Mean::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& x = inputs.at(0);
  check_axes_fit(axes_, x.ndim(), user_name());
  ReducePlan plan = make_reduce_plan(x.shape(), axes_, keepdims_);
  std::vector<double> acc(plan.out_numel, 0.0);
  dispatch_dtype(x.dtype(), [&]<typename T>() {
    fold_elements<T>(x, plan, [&](int64_t k, T v) { acc[k] += static_cast<double>(v); });
  });
  const double count = static_cast<double>(plan.reduced_count);
  Tensor& out = ensure_output(outputs.at(0), float_of(x.dtype(), floatx_), plan.out_shape);
  dispatch_dtype(out.dtype(), [&]<typename O>() {
    if constexpr (std::is_floating_point_v<O>) {
      O* o = out.data<O>();
      for (int64_t i = 0; i < plan.out_numel; ++i)
        o[i] = static_cast<O>(plan.reduced_count ? acc[i] / count : std::numeric_limits<double>::quiet_NaN());
    } else {
      TGC_INTERNAL_CHECK(false, "Mean produced a non-float dtype");
    }
  });
}

}  // namespace tgc
