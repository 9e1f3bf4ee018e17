// Softmax / LogSoftmax: type rules and the stable reference evaluation.
#include "ops/nn/softmax.h"

#include <cmath>

#include "ops/nn/exp_sums.h"
#include "ops/reduce/reduce_axes.h"

namespace tgc {

Softmax::Softmax(int axis, bool log, DType floatx) : axis_(axis), log_(log), floatx_(floatx) {
  TGC_INTERNAL_CHECK(axis_ >= 0, "Softmax built with a negative axis; normalize_reduce_axis first");
  TGC_INTERNAL_CHECK(is_float(floatx_), "Softmax built with a non-float floatX");
}

std::string Softmax::name() const {
  return std::string(log_ ? "LogSoftmax" : "Softmax") +
         brace_params({"axis=" + std::to_string(axis_),
                       floatx_ == DType::Float32 ? "" : "floatX=" + std::string(dtype_name(floatx_))});
}

namespace {

// The axis as a reduction; a 0-d input (a single element) is its own row.
ReduceAxes row_axes(int axis, int ndim, const std::string& what) {
  if (ndim == 0) return std::nullopt;
  ReduceAxes axes = std::vector<int>{axis};
  check_axes_fit(axes, ndim, what);
  return axes;
}

}  // namespace

std::vector<Type> Softmax::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, name() + " takes one input");
  row_axes(axis_, inputs[0].ndim(), user_name());
  return {Type(float_of(inputs[0].dtype, floatx_), inputs[0].shape)};
}

std::vector<Shape> Softmax::infer_shapes(const std::vector<Shape>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, name() + " takes one input");
  row_axes(axis_, static_cast<int>(inputs[0].size()), user_name());
  return {inputs[0]};
}

void Softmax::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& x = inputs.at(0);
  ReducePlan plan = make_reduce_plan(x.shape(), row_axes(axis_, x.ndim(), user_name()), false);
  Tensor& out = ensure_output(outputs.at(0), float_of(x.dtype(), floatx_), x.shape());
  const Strides out_strides = contiguous_strides(x.shape());
  // Only log_softmax moves a non-finite row max to 0 (see softmax.h).
  const ExpSums s = shifted_exp_sums(x, plan, /*finite_shift=*/log_);
  dispatch_dtype(x.dtype(), [&]<typename T>() {
    dispatch_dtype(out.dtype(), [&]<typename O>() {
      if constexpr (is_float_type_v<O>) {
        const T* px = x.data<T>();
        O* po = out.data<O>();
        strided_loop(x.shape(), {x.strides(), plan.acc_strides, out_strides}, [&](const int64_t* off) {
          double t = static_cast<double>(px[off[0]]) - s.shift[off[1]];
          po[off[2]] = static_cast<O>(log_ ? t - std::log(s.sum[off[1]]) : std::exp(t) / s.sum[off[1]]);
        });
      } else {
        TGC_INTERNAL_CHECK(false, "Softmax produced a non-float dtype");
      }
    });
  });
}

}  // namespace tgc
