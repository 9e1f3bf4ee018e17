// SoftmaxCrossEntropy: type rules, and the reference evaluation as the composition it replaced
// (each part's own perform(), so the fused op and the graph it came from agree exactly).
#include "ops/nn/softmax_cross_entropy.h"

#include <fmt/format.h>

#include "ops/elemwise/elemwise.h"
#include "ops/nn/log_softmax_grad.h"
#include "ops/nn/softmax.h"
#include "ops/reduce/careduce.h"
#include "ops/reduce/reduce_axes.h"
#include "runtime/error.h"

namespace tgc {

SoftmaxCrossEntropy::SoftmaxCrossEntropy(int axis, std::optional<double> scale) : axis_(axis), scale_(scale) {
  TGC_INTERNAL_CHECK(axis_ >= 0, "SoftmaxCrossEntropy built with a negative axis");
}

std::string SoftmaxCrossEntropy::name() const {
  // The scale's shortest exact decimal: two ops are one (CSE, kernel keys) only if equal.
  return "SoftmaxCrossEntropy" +
         brace_params({"axis=" + std::to_string(axis_), scale_ ? fmt::format("scale={}", *scale_) : ""});
}

std::vector<Type> SoftmaxCrossEntropy::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == (scale_ ? 2u : 3u), name() + " takes (z, t, g), or (z, t) with a scale");
  const Type& z = inputs[kZ];
  const Type& t = inputs[kT];
  bool ok = is_float(z.dtype) && z.ndim() >= 1 && t.dtype == z.dtype && t.ndim() == z.ndim();
  if (!scale_) ok = ok && inputs[kG].dtype == z.dtype && inputs[kG].ndim() == z.ndim();
  if (!ok)
    throw TypeError("softmax_cross_entropy: z " + z.str() + ", t " + t.str() +
                        (scale_ ? std::string() : " and g " + inputs[kG].str()) + " do not fit",
                    user_name(), "made by the optimizer from log_softmax, its gradient and sum(t * log_softmax(z))");
  check_axes_fit(std::vector<int>{axis_}, z.ndim(), user_name());
  Shape rows;
  for (int d = 0; d < z.ndim(); ++d)
    if (d != axis_) rows.push_back(z.shape[d]);
  return {Type(z.dtype, rows), Type(z.dtype, z.shape)};
}

std::vector<Shape> SoftmaxCrossEntropy::infer_shapes(const std::vector<Shape>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == (scale_ ? 2u : 3u), name() + " takes (z, t, g), or (z, t) with a scale");
  const Shape& z = inputs[kZ];
  if (inputs[kT] != z || (!scale_ && inputs[kG] != z))
    throw ShapeError("softmax_cross_entropy: z of shape " + shape_str(z) + ", t of shape " + shape_str(inputs[kT]) +
                         (scale_ ? std::string() : " and g of shape " + shape_str(inputs[kG])) + " do not fit",
                     user_name(), "t (and g) have z's shape");
  Shape rows;
  for (int d = 0; d < static_cast<int>(z.size()); ++d)
    if (d != axis_) rows.push_back(z[d]);
  return {rows, z};
}

void SoftmaxCrossEntropy::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  std::vector<Shape> shapes;
  for (const Tensor& t : inputs) shapes.push_back(t.shape());
  infer_shapes(shapes);
  const DType dtype = inputs[kZ].dtype();
  auto run = [](const Op& op, const std::vector<Tensor>& in) {
    std::vector<Tensor> out(1);
    op.perform(in, out);
    return out[0];
  };
  const Tensor y = run(Softmax(axis_, /*log=*/true, dtype), {inputs[kZ]});
  const Elemwise mul(ScalarOpKind::Mul);
  const Tensor r = run(CAReduce(ReduceKind::Sum, ReduceAxes(std::vector<int>{axis_}), false),
                       {run(mul, {inputs[kT], y})});
  const Tensor g = scale_ ? run(mul, {inputs[kT], Tensor::full(dtype, Shape{}, *scale_)}) : inputs[kG];
  const Tensor d = run(LogSoftmaxGrad(axis_), {g, y});
  // The results into the outputs' slots (their buffers reused where the executor left any).
  Tensor& r_out = ensure_output(outputs.at(0), dtype, r.shape());
  copy_elements(r, r_out);
  Tensor& d_out = ensure_output(outputs.at(1), dtype, d.shape());
  copy_elements(d, d_out);
}

}  // namespace tgc
