// FusedConv2d: the type and shape rules of conv2d plus a bias of O entries; perform through
// oneDNN's bias and relu post-op where it applies, else the reference loops and the epilogue.
#include "ops/conv/fused_conv2d.h"

#include <algorithm>
#include <fmt/format.h>

#include "ops/conv/conv_reference.h"
#include "ops/conv/dnnl_conv.h"
#include "runtime/error.h"

namespace tgc {

namespace {

void check_bias(const Shape& b, int64_t o, const std::string& what) {
  if (b.size() != 1 || (o >= 0 && b[0] >= 0 && b[0] != o))
    throw ShapeError(fmt::format("{}: the bias has shape {}, not ({},)", what, shape_str(b), o), "",
                     "the bias has one entry per output channel");
}

}  // namespace

std::string FusedConv2d::name() const {
  return "FusedConv2d{" + params_.describe() + (relu_ ? ",epilogue=bias+relu}" : ",epilogue=bias}");
}

std::string FusedConv2d::describe_call(const std::vector<std::string>& in) const {
  const std::string conv = fmt::format("conv2d({}, {}) + {}", in.at(0), in.at(1), in.at(2));
  return relu_ ? "relu(" + conv + ")" : conv;
}

std::vector<Type> FusedConv2d::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 3, "FusedConv2d takes three inputs");
  const DType d = check_dtypes(inputs);
  const Conv2dGeometry g = conv_geometry(params_, inputs[0].shape, inputs[1].shape, user_name());
  check_bias(inputs[2].shape, g.o, user_name());
  return {Type(d, conv_act_shape(params_.layout, g.n, g.o, g.oh, g.ow))};
}

std::vector<Shape> FusedConv2d::infer_shapes(const std::vector<Shape>& inputs) const {
  const Conv2dGeometry g = conv_geometry(params_, inputs.at(0), inputs.at(1), user_name());
  check_bias(inputs.at(2), g.o, user_name());
  return {conv_act_shape(params_.layout, g.n, g.o, g.oh, g.ow)};
}

void FusedConv2d::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor &x = inputs.at(0), &w = inputs.at(1), &b = inputs.at(2);
  const Conv2dGeometry g = conv_geometry(params_, x.shape(), w.shape(), user_name());
  check_bias(b.shape(), g.o, user_name());
  if (dnnl_conv_applies(x.dtype(), g)) {
    dnnl_conv(ConvDirection::Forward, params_, g, x, w, b, relu_, outputs.at(0));
    return;
  }
  Tensor y;
  conv_reference(ConvDirection::Forward, params_, g, x, w, DType::Float64, y);
  std::vector<double> v = to_nchw_doubles(y, params_.layout);
  const std::vector<double> bias = b.to_vector<double>();
  const int64_t plane = g.oh * g.ow;
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] += bias[(static_cast<int64_t>(i) / plane) % g.o];
    if (relu_) v[i] = std::max(v[i], 0.0);
  }
  from_nchw_doubles(v, {g.n, g.o, g.oh, g.ow}, params_.layout, x.dtype(), outputs.at(0));
}

}  // namespace tgc
