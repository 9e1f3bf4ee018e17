// FloatReduce: the name, type and shape rules of float-valued reductions, and the write-out
// of their double results.
#include "ops/reduce/float_reduce.h"

namespace tgc {

FloatReduce::FloatReduce(std::string class_name, ReduceAxes axes, bool keepdims, DType floatx)
    : class_name_(std::move(class_name)), axes_(std::move(axes)), keepdims_(keepdims), floatx_(floatx) {
  check_canonical_axes(axes_, class_name_);
  TGC_INTERNAL_CHECK(is_float(floatx_), class_name_ + " built with a non-float floatX");
}

std::string FloatReduce::name() const {
  return class_name_ + brace_params({axes_param(axes_), keepdims_ ? "keepdims=True" : "",
                                     floatx_ == DType::Float32 ? "" : "floatX=" + std::string(dtype_name(floatx_))});
}

std::vector<Type> FloatReduce::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, class_name_ + " takes one input");
  const Type& in = inputs[0];
  check_axes_fit(axes_, in.ndim(), user_name());
  return {Type(float_of(in.dtype, floatx_), reduced_dims(in.shape, axes_, keepdims_))};
}

std::vector<Shape> FloatReduce::infer_shapes(const std::vector<Shape>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, class_name_ + " takes one input");
  check_axes_fit(axes_, static_cast<int>(inputs[0].size()), user_name());
  return {make_reduce_plan(inputs[0], axes_, keepdims_).out_shape};
}

void FloatReduce::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& x = inputs.at(0);
  check_axes_fit(axes_, x.ndim(), user_name());
  const ReducePlan plan = make_reduce_plan(x.shape(), axes_, keepdims_);
  const std::vector<double> result = reduce(x, plan);
  TGC_INTERNAL_CHECK(static_cast<int64_t>(result.size()) == plan.out_numel,
                     class_name_ + " reduced to the wrong number of elements");
  Tensor& out = ensure_output(outputs.at(0), float_of(x.dtype(), floatx_), plan.out_shape);
  dispatch_dtype(out.dtype(), [&]<typename O>() {
    if constexpr (is_float_type_v<O>) {
      O* o = out.data<O>();
      for (int64_t i = 0; i < plan.out_numel; ++i) o[i] = static_cast<O>(result[i]);
    } else {
      TGC_INTERNAL_CHECK(false, class_name_ + " produced a non-float dtype");
    }
  });
}

}  // namespace tgc
