// Pool2d and Pool2dGrad: PyTorch's output sizes and divisors, and the reference loops (one
// window walk shared by the forward pass and the gradient, in double over NCHW copies).
#include "ops/pool/pool2d.h"

#include <cmath>
#include <fmt/format.h>
#include <functional>

#include "ops/conv/conv_reference.h"
#include "ops/core/apply.h"
#include "ops/core/node.h"
#include "ops/pool/dnnl_pool.h"
#include "runtime/error.h"

namespace tgc {

std::string Pool2dParams::describe() const {
  std::string s = fmt::format("mode={},layout={},kernel=({},{}),stride=({},{}),pad=({},{})",
                              mode == PoolMode::Max ? "max" : "avg", layout_name(layout), kernel[0], kernel[1],
                              stride[0], stride[1], pad[0], pad[1]);
  if (ceil_mode) s += ",ceil_mode";
  if (mode == PoolMode::Avg && !count_include_pad) s += ",exclude_pad";
  return s;
}

void Pool2dParams::check(const std::string& what) const {
  for (int i = 0; i < 2; ++i) {
    if (kernel[i] < 1)
      throw ValueError(what + ": " + fmt::format("kernel ({}, {}) is not positive", kernel[0], kernel[1]), "",
                       "each kernel extent is at least 1");
    if (stride[i] < 1)
      throw ValueError(what + ": " + fmt::format("stride ({}, {}) is not positive", stride[0], stride[1]), "",
                       "each stride is at least 1 (the default is the kernel)");
    if (pad[i] < 0 || pad[i] > kernel[i] / 2)
      throw ValueError(what + ": " + fmt::format("padding ({}, {}) for kernel ({}, {})", pad[0], pad[1], kernel[0], kernel[1]), "",
                       "padding is between 0 and half the kernel (PyTorch's rule), so no window is all padding");
  }
}

int64_t Pool2dParams::out_size(int64_t in, int i) const {
  const int64_t span = in + 2 * pad[i] - kernel[i];
  if (span < 0) return 0;
  int64_t out = (ceil_mode ? (span + stride[i] - 1) / stride[i] : span / stride[i]) + 1;
  // A last window must start inside the input or its left padding.
  if (ceil_mode && (out - 1) * stride[i] >= in + pad[i]) --out;
  return out;
}

namespace {

Shape pooled_shape(const Pool2dParams& p, const Shape& x, const std::string& what) {
  p.check(what);
  if (x.size() != 4)
    throw ShapeError(what + ": " + fmt::format("the input has shape {} (rank {}), not rank 4", shape_str(x), x.size()), "",
                     p.layout == ConvLayout::NCHW ? "pooling takes (N, C, H, W) tensors (layout NCHW)"
                                                  : "pooling takes (N, H, W, C) tensors (layout NHWC)");
  const ConvAxes a = conv_axes(p.layout);
  Shape out = x;
  for (int i = 0; i < 2; ++i) {
    const int ax = i == 0 ? a.h : a.w;
    if (x[ax] < 0) continue;
    out[ax] = p.out_size(x[ax], i);
    if (out[ax] <= 0)
      throw ShapeError(what + ": " + fmt::format("the kernel ({}, {}) does not fit the input {} padded by ({}, {})", p.kernel[0],
                                   p.kernel[1], shape_str(x), p.pad[0], p.pad[1]),
                       "", "use a smaller kernel, or pad the input");
  }
  return out;
}

void check_float(const Type& t, const Op& op) {
  if (!is_float(t.dtype))
    throw TypeError(fmt::format("{} takes a float tensor, got {}", op.user_name(), dtype_name(t.dtype)), "",
                    "cast the input to float32 (or float64) first");
}

// Walks every window of x (NCHW doubles, n*c planes of h x w): visit(plane, oh, ow, cells),
// cells the flat in-plane indices of the window's elements inside the input, and the divisor
// of an average.
struct Window {
  std::vector<int64_t> cells;
  double divisor = 1;
};

void walk_windows(const Pool2dParams& p, int64_t planes, int64_t h, int64_t w,
                  const std::function<void(int64_t, int64_t, Window&)>& visit) {
  const int64_t oh = p.out_size(h, 0), ow = p.out_size(w, 1);
  Window win;
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        int64_t h0 = i * p.stride[0] - p.pad[0], w0 = j * p.stride[1] - p.pad[1];
        int64_t h1 = std::min(h0 + p.kernel[0], h + p.pad[0]), w1 = std::min(w0 + p.kernel[1], w + p.pad[1]);
        const int64_t padded = (h1 - h0) * (w1 - w0);
        h0 = std::max<int64_t>(h0, 0);
        w0 = std::max<int64_t>(w0, 0);
        h1 = std::min(h1, h);
        w1 = std::min(w1, w);
        win.cells.clear();
        for (int64_t a = h0; a < h1; ++a)
          for (int64_t b = w0; b < w1; ++b) win.cells.push_back(pl * h * w + a * w + b);
        win.divisor = static_cast<double>(p.count_include_pad ? padded : (h1 - h0) * (w1 - w0));
        visit(pl, i * ow + j, win);
      }
}

// The first maximum of a window (NaN wins, as in PyTorch), or -1 for an empty window.
int64_t argmax_cell(const std::vector<double>& x, const Window& win) {
  int64_t best = -1;
  for (int64_t c : win.cells)
    if (best < 0 || x[c] > x[best] || (std::isnan(x[c]) && !std::isnan(x[best]))) best = c;
  return best;
}

}  // namespace

std::string Pool2d::name() const { return "Pool2d{" + params_.describe() + "}"; }
std::string Pool2dGrad::name() const { return "Pool2dGrad{" + params_.describe() + "}"; }

std::vector<Type> Pool2d::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, "Pool2d takes one input");
  check_float(inputs[0], *this);
  return {Type(inputs[0].dtype, pooled_shape(params_, inputs[0].shape, user_name()))};
}

std::vector<Shape> Pool2d::infer_shapes(const std::vector<Shape>& inputs) const {
  return {pooled_shape(params_, inputs.at(0), user_name())};
}

void Pool2d::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& x = inputs.at(0);
  const Shape y_shape = pooled_shape(params_, x.shape(), user_name());
  if (dnnl_pool_applies(params_, x)) return dnnl_pool(params_, x, Tensor(), outputs.at(0));
  const ConvAxes a = conv_axes(params_.layout);
  const int64_t n = x.shape()[0], c = x.shape()[a.c], h = x.shape()[a.h], w = x.shape()[a.w];
  const std::vector<double> vx = to_nchw_doubles(x, params_.layout);
  const int64_t plane_out = y_shape[a.h] * y_shape[a.w];
  std::vector<double> y(static_cast<size_t>(n * c * plane_out));
  walk_windows(params_, n * c, h, w, [&](int64_t pl, int64_t o, Window& win) {
    double& r = y[pl * plane_out + o];
    if (params_.mode == PoolMode::Max) {
      r = vx[argmax_cell(vx, win)];
    } else {
      double s = 0;
      for (int64_t cell : win.cells) s += vx[cell];
      r = s / win.divisor;
    }
  });
  from_nchw_doubles(y, {n, c, y_shape[a.h], y_shape[a.w]}, params_.layout, x.dtype(), outputs.at(0));
}

std::vector<VarPtr> Pool2d::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  const VarPtr& g = output_grads.at(0);
  if (!g) return {nullptr};
  return {apply1(std::make_shared<Pool2dGrad>(params_), {node.inputs().at(0), g})};
}

std::vector<Type> Pool2dGrad::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 2, "Pool2dGrad takes two inputs");
  check_float(inputs[0], *this);
  check_float(inputs[1], *this);
  pooled_shape(params_, inputs[0].shape, user_name());
  return {Type(inputs[0].dtype, inputs[0].shape)};
}

std::vector<Shape> Pool2dGrad::infer_shapes(const std::vector<Shape>& inputs) const {
  const Shape y = pooled_shape(params_, inputs.at(0), user_name());
  if (inputs.at(1) != y)
    throw ShapeError(user_name() + ": " + fmt::format("the output gradient has shape {}, the pooled output {}", shape_str(inputs[1]),
                                 shape_str(y)),
                     "", "the gradient must have the forward pooling's output shape");
  return {inputs[0]};
}

void Pool2dGrad::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor &x = inputs.at(0), &gy = inputs.at(1);
  infer_shapes({x.shape(), gy.shape()});
  if (gy.dtype() == x.dtype() && dnnl_pool_applies(params_, x)) return dnnl_pool(params_, x, gy, outputs.at(0));
  const ConvAxes a = conv_axes(params_.layout);
  const int64_t n = x.shape()[0], c = x.shape()[a.c], h = x.shape()[a.h], w = x.shape()[a.w];
  const std::vector<double> vx = to_nchw_doubles(x, params_.layout), vg = to_nchw_doubles(gy, params_.layout);
  const int64_t plane_out = gy.shape()[a.h] * gy.shape()[a.w];
  std::vector<double> gx(vx.size(), 0.0);
  walk_windows(params_, n * c, h, w, [&](int64_t pl, int64_t o, Window& win) {
    const double g = vg[pl * plane_out + o];
    if (params_.mode == PoolMode::Max) {
      gx[argmax_cell(vx, win)] += g;
    } else {
      for (int64_t cell : win.cells) gx[cell] += g / win.divisor;
    }
  });
  from_nchw_doubles(gx, {n, c, h, w}, params_.layout, x.dtype(), outputs.at(0));
}

}  // namespace tgc
