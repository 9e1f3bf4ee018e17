// LogSoftmaxGrad: type rules, the reference evaluation and its own gradient.
#include "ops/nn/log_softmax_grad.h"

#include <cmath>

#include "ops/core/node.h"
#include "ops/gradient/build.h"
#include "ops/reduce/reduce_axes.h"
#include "ops/reduce/reduce_grad.h"
#include "runtime/error.h"

namespace tgc {

LogSoftmaxGrad::LogSoftmaxGrad(int axis) : axis_(axis) {
  TGC_INTERNAL_CHECK(axis_ >= 0, "LogSoftmaxGrad built with a negative axis");
}

std::string LogSoftmaxGrad::name() const { return "LogSoftmaxGrad" + brace_params({"axis=" + std::to_string(axis_)}); }

std::vector<Type> LogSoftmaxGrad::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 2, name() + " takes (g, y)");
  const Type& g = inputs[0];
  const Type& y = inputs[1];
  if (!is_float(y.dtype) || g.dtype != y.dtype || g.ndim() != y.ndim())
    throw TypeError("log_softmax_grad: g " + g.str() + " and y " + y.str() + " must be floats of one dtype and rank",
                    user_name(), "pass the gradient of log_softmax's result and that result");
  if (y.ndim() > 0) check_axes_fit(std::vector<int>{axis_}, y.ndim(), user_name());
  for (int d = 0; d < y.ndim(); ++d)
    if (g.shape[d] >= 0 && y.shape[d] >= 0 && g.shape[d] != y.shape[d])
      throw ShapeError("log_softmax_grad: g " + g.str() + " and y " + y.str() + " differ in shape", user_name(),
                       "g is the gradient of y, of y's shape");
  return {Type(y.dtype, y.shape)};
}

std::vector<Shape> LogSoftmaxGrad::infer_shapes(const std::vector<Shape>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 2, name() + " takes (g, y)");
  if (inputs[0] != inputs[1])
    throw ShapeError("log_softmax_grad: g of shape " + shape_str(inputs[0]) + " and y of shape " +
                         shape_str(inputs[1]) + " differ",
                     user_name(), "g is the gradient of y, of y's shape");
  return {inputs[1]};
}

void LogSoftmaxGrad::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& y = inputs.at(1);
  const Tensor& g = inputs.at(0);
  infer_shapes({g.shape(), y.shape()});  // ShapeError unless g has y's shape
  const ReduceAxes axes = y.ndim() == 0 ? ReduceAxes() : ReduceAxes(std::vector<int>{axis_});
  const ReducePlan plan = make_reduce_plan(y.shape(), axes, false);
  Tensor& out = ensure_output(outputs.at(0), y.dtype(), y.shape());
  dispatch_dtype(y.dtype(), [&]<typename T>() {
    if constexpr (is_float_type_v<T>) {
      std::vector<double> sum(static_cast<size_t>(plan.out_numel), 0.0);
      fold_elements<T>(g, plan, [&](int64_t k, T v) { sum[k] += static_cast<double>(v); });
      const T* pg = g.data<T>();
      const T* py = y.data<T>();
      T* po = out.data<T>();
      strided_loop(y.shape(), {g.strides(), y.strides(), plan.acc_strides, out.strides()}, [&](const int64_t* off) {
        po[off[3]] = static_cast<T>(static_cast<double>(pg[off[0]]) -
                                    std::exp(static_cast<double>(py[off[1]])) * sum[off[2]]);
      });
    } else {
      TGC_INTERNAL_CHECK(false, "LogSoftmaxGrad of a non-float dtype");
    }
  });
}

std::vector<VarPtr> LogSoftmaxGrad::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  const VarPtr& h = output_grads.at(0);
  if (!h) return {nullptr, nullptr};
  const VarPtr& g = node.inputs().at(0);
  const VarPtr& y = node.inputs().at(1);
  using gradient::mul;
  using gradient::sub;
  // out_i = g_i - s_i * sum_j g_j with s = exp(y) (j over the row): d out_i / d g_j = [i == j] - s_i,
  // d out_i / d y_i = -s_i * sum(g).
  VarPtr s = gradient::ew(ScalarOpKind::Exp, {y});
  VarPtr gg = sub(h, reduce_grad::sum_axes(mul(h, s), {axis_}, true));
  VarPtr gy = gradient::neg(mul(mul(h, s), reduce_grad::sum_axes(g, {axis_}, true)));
  return {gradient::cast(gg, g->type().dtype), gradient::cast(gy, y->type().dtype)};
}

}  // namespace tgc
