// Conv2d, Conv2dGradInput and Conv2dGradWeights: type and shape rules over conv_geometry, and
// the reference evaluation over conv_reference.
#include "ops/conv/conv2d.h"

#include <fmt/format.h>

#include "ops/conv/conv_reference.h"
#include "ops/conv/dnnl_conv.h"
#include "runtime/error.h"

namespace tgc {

namespace {

// oneDNN where it applies (float32), else the reference loops.
void compute(ConvDirection dir, const Conv2dParams& p, const Conv2dGeometry& g, const Tensor& a, const Tensor& b,
             Tensor& out) {
  if (dnnl_conv_applies(a.dtype(), g))
    dnnl_conv(dir, p, g, a, b, Tensor(), false, out);
  else
    conv_reference(dir, p, g, a, b, a.dtype(), out);
}

}  // namespace

DType ConvOpBase::check_dtypes(const std::vector<Type>& inputs) const {
  const DType d = inputs.at(0).dtype;
  for (const Type& t : inputs)
    if (!is_float(t.dtype) || t.dtype != d)
      throw TypeError(fmt::format("{} takes float tensors of one dtype, got {} and {}", user_name(),
                                  dtype_name(inputs[0].dtype), dtype_name(inputs[1].dtype)),
                      "", "cast both operands to float32 (or float64) first, e.g. cast(x, \"float32\")");
  return d;
}

// ---- Conv2d

std::vector<Type> Conv2d::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 2, "Conv2d takes two inputs");
  const DType d = check_dtypes(inputs);
  const Conv2dGeometry g = conv_geometry(params_, inputs[0].shape, inputs[1].shape, user_name());
  return {Type(d, conv_act_shape(params_.layout, g.n, g.o, g.oh, g.ow))};
}

std::vector<Shape> Conv2d::infer_shapes(const std::vector<Shape>& inputs) const {
  const Conv2dGeometry g = conv_geometry(params_, inputs.at(0), inputs.at(1), user_name());
  return {conv_act_shape(params_.layout, g.n, g.o, g.oh, g.ow)};
}

void Conv2d::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor &x = inputs.at(0), &w = inputs.at(1);
  const Conv2dGeometry g = conv_geometry(params_, x.shape(), w.shape(), user_name());
  compute(ConvDirection::Forward, params_, g, x, w, outputs.at(0));
}

// ---- Conv2dGradInput

std::vector<Type> Conv2dGradInput::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 2 || inputs.size() == 3, "Conv2dGradInput takes two or three inputs");
  const DType d = check_dtypes({inputs[0], inputs[1]});
  const Conv2dGeometry g = conv_geometry_from_output(params_, inputs[0].shape, inputs[1].shape,
                                                     inputs.size() == 3 ? &inputs[2].shape : nullptr, user_name());
  return {Type(d, conv_act_shape(params_.layout, g.n, g.c, g.h, g.w))};
}

std::vector<Shape> Conv2dGradInput::infer_shapes(const std::vector<Shape>& inputs) const {
  const Conv2dGeometry g = conv_geometry_from_output(params_, inputs.at(0), inputs.at(1),
                                                     inputs.size() == 3 ? &inputs[2] : nullptr, user_name());
  return {conv_act_shape(params_.layout, g.n, g.c, g.h, g.w)};
}

void Conv2dGradInput::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor &dy = inputs.at(0), &w = inputs.at(1);
  const Shape* like = inputs.size() == 3 ? &inputs[2].shape() : nullptr;
  const Conv2dGeometry g = conv_geometry_from_output(params_, dy.shape(), w.shape(), like, user_name());
  compute(ConvDirection::GradInput, params_, g, dy, w, outputs.at(0));
}

// ---- Conv2dGradWeights

std::vector<Type> Conv2dGradWeights::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 3, "Conv2dGradWeights takes three inputs");
  const DType d = check_dtypes({inputs[0], inputs[1]});
  const Conv2dGeometry g =
      conv_geometry_from_output(params_, inputs[1].shape, inputs[2].shape, &inputs[0].shape, user_name());
  return {Type(d, conv_weight_shape(params_.layout, g.o, g.c < 0 ? -1 : g.c / params_.groups, g.kh, g.kw))};
}

std::vector<Shape> Conv2dGradWeights::infer_shapes(const std::vector<Shape>& inputs) const {
  const Conv2dGeometry g = conv_geometry_from_output(params_, inputs.at(1), inputs.at(2), &inputs[0], user_name());
  return {conv_weight_shape(params_.layout, g.o, g.c / params_.groups, g.kh, g.kw)};
}

void Conv2dGradWeights::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor &x = inputs.at(0), &dy = inputs.at(1);
  const Conv2dGeometry g = conv_geometry_from_output(params_, dy.shape(), inputs.at(2).shape(), &x.shape(), user_name());
  compute(ConvDirection::GradWeights, params_, g, x, dy, outputs.at(0));
}

}  // namespace tgc
