// Softmax / LogSoftmax: type rules and the stable reference evaluation.
#include "ops/nn/softmax.h"

#include <cmath>
#include <limits>
#include <type_traits>

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

// Rows along the last axis of a contiguous input, each in one pass for its max, one for its
// sum and one for its results: what the general path computes, in the same order (so the same
// bits), without the per-element offset arithmetic of strided_loop. A 256x10 log_softmax (the
// MLP's) took 75 us on the general path on one core, most of it that overhead.
template <typename T, typename O>
void softmax_rows(const T* x, O* out, int64_t rows, int64_t len, bool log) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = x + r * len;
    O* o = out + r * len;
    double shift = -std::numeric_limits<double>::infinity();
    for (int64_t i = 0; i < len; ++i) {
      const double d = static_cast<double>(row[i]);
      if (d > shift || std::isnan(d)) shift = d;
    }
    if (log && !std::isfinite(shift)) shift = 0.0;  // log_softmax's finite shift (softmax.h)
    double sum = 0.0;
    for (int64_t i = 0; i < len; ++i) sum += std::exp(static_cast<double>(row[i]) - shift);
    if (log) {
      const double log_sum = std::log(sum);
      for (int64_t i = 0; i < len; ++i) o[i] = static_cast<O>(static_cast<double>(row[i]) - shift - log_sum);
    } else {
      for (int64_t i = 0; i < len; ++i) o[i] = static_cast<O>(std::exp(static_cast<double>(row[i]) - shift) / sum);
    }
  }
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
  if (x.ndim() >= 1 && axis_ == x.ndim() - 1 && x.is_contiguous() && x.numel() > 0) {
    const int64_t len = x.shape().back();
    bool done = false;
    dispatch_dtype(x.dtype(), [&]<typename T>() {
      dispatch_dtype(out.dtype(), [&]<typename O>() {
        if constexpr (std::is_arithmetic_v<T> && std::is_floating_point_v<O>) {
          softmax_rows<T, O>(x.data<T>(), out.data<O>(), x.numel() / len, len, log_);
          done = true;
        }
      });
    });
    if (done) return;
  }
  // Only log_softmax moves a non-finite row max to 0 (see softmax.h).
  ExpSums s = shifted_exp_sums(x, plan, /*finite_shift=*/log_);
  // log_softmax subtracts each row's log of its sum: taken once a row, not once an element
  // (the same double per element, so the same results; 2560 logs were most of a 256x10 call).
  if (log_)
    for (double& sum : s.sum) sum = std::log(sum);
  dispatch_dtype(x.dtype(), [&]<typename T>() {
    dispatch_dtype(out.dtype(), [&]<typename O>() {
      if constexpr (is_float_type_v<O>) {
        const T* px = x.data<T>();
        O* po = out.data<O>();
        strided_loop(x.shape(), {x.strides(), plan.acc_strides, out_strides}, [&](const int64_t* off) {
          double t = static_cast<double>(px[off[0]]) - s.shift[off[1]];
          po[off[2]] = static_cast<O>(log_ ? t - s.sum[off[1]] : std::exp(t) / s.sum[off[1]]);
        });
      } else {
        TGC_INTERNAL_CHECK(false, "Softmax produced a non-float dtype");
      }
    });
  });
}

}  // namespace tgc
