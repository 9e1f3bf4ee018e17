// Conv2dParams: attribute checks, "same" padding, and the geometry of one convolution.
#include "ops/conv/conv_params.h"

#include <fmt/format.h>

#include "runtime/error.h"

namespace tgc {

const char* layout_name(ConvLayout layout) { return layout == ConvLayout::NCHW ? "NCHW" : "NHWC"; }

std::string Conv2dParams::describe() const {
  std::string s = fmt::format("layout={},stride=({},{})", layout_name(layout), stride[0], stride[1]);
  if (same)
    s += ",pad=same";
  else
    s += fmt::format(",pad=({},{},{},{})", pad[0], pad[1], pad[2], pad[3]);
  s += fmt::format(",dilation=({},{}),groups={}", dilation[0], dilation[1], groups);
  if (output_padding[0] != 0 || output_padding[1] != 0)
    s += fmt::format(",output_padding=({},{})", output_padding[0], output_padding[1]);
  return s;
}

std::array<int64_t, 4> Conv2dParams::resolved_pad(int64_t kh, int64_t kw) const {
  if (!same) return pad;
  const int64_t th = dilation[0] * (kh - 1), tw = dilation[1] * (kw - 1);
  return {th / 2, th - th / 2, tw / 2, tw - tw / 2};
}

void Conv2dParams::check(const std::string& what) const {
  for (int i = 0; i < 2; ++i) {
    if (stride[i] < 1)
      throw ValueError(what + ": " + fmt::format("stride ({}, {}) is not positive", stride[0], stride[1]), "",
                       "each stride is at least 1");
    if (dilation[i] < 1)
      throw ValueError(what + ": " + fmt::format("dilation ({}, {}) is not positive", dilation[0], dilation[1]), "",
                       "each dilation is at least 1 (1: no dilation)");
    if (output_padding[i] < 0 || output_padding[i] >= std::max(stride[i], dilation[i]))
      throw ValueError(what + ": " + fmt::format("output_padding ({}, {}) is out of range for stride ({}, {})", output_padding[0],
                                   output_padding[1], stride[0], stride[1]), "", "output_padding must be smaller than the stride or the dilation (PyTorch's rule)");
  }
  for (int64_t v : pad)
    if (v < 0)
      throw ValueError(what + ": " + fmt::format("padding ({}, {}, {}, {}) has a negative entry", pad[0], pad[1], pad[2], pad[3]), "", "padding counts zero rows/columns added on each side; use 0 or more");
  if (groups < 1)
    throw ValueError(what + ": " + fmt::format("groups={} is not positive", groups), "", "groups is at least 1 (1: dense)");
  if (same && (stride[0] != 1 || stride[1] != 1))
    throw ValueError(what + ": " + fmt::format("padding=\"same\" with stride ({}, {})", stride[0], stride[1]), "",
                     "\"same\" padding needs stride 1 (as in PyTorch); give the padding explicitly for strided "
                     "convolutions");
}

ConvAxes conv_axes(ConvLayout layout) {
  if (layout == ConvLayout::NCHW) return {1, 2, 3, 1, 2, 3};
  return {3, 1, 2, 3, 1, 2};
}

int64_t conv_out_size(int64_t in, int64_t k, int64_t stride, int64_t dilation, int64_t pad_lo, int64_t pad_hi) {
  const int64_t span = in + pad_lo + pad_hi - dilation * (k - 1) - 1;
  if (span < 0) return 0;
  return span / stride + 1;
}

int64_t conv_transpose_out_size(int64_t in, int64_t k, int64_t stride, int64_t dilation, int64_t pad_lo,
                                int64_t pad_hi, int64_t output_padding) {
  return (in - 1) * stride - pad_lo - pad_hi + dilation * (k - 1) + 1 + output_padding;
}

Shape conv_act_shape(ConvLayout layout, int64_t n, int64_t c, int64_t h, int64_t w) {
  return layout == ConvLayout::NCHW ? Shape{n, c, h, w} : Shape{n, h, w, c};
}

Shape conv_weight_shape(ConvLayout layout, int64_t o, int64_t ci, int64_t kh, int64_t kw) {
  return layout == ConvLayout::NCHW ? Shape{o, ci, kh, kw} : Shape{o, kh, kw, ci};
}

namespace {

void check_rank4(const Shape& s, const char* role, const std::string& what, ConvLayout layout) {
  if (s.size() != 4)
    throw ShapeError(what + ": " + fmt::format("the {} has shape {} (rank {}), not rank 4", role, shape_str(s), s.size()), "",
                     fmt::format("{} convolutions take {} activations and {} weights", layout_name(layout),
                                 layout == ConvLayout::NCHW ? "(N, C, H, W)" : "(N, H, W, C)",
                                 layout == ConvLayout::NCHW ? "(O, C/groups, KH, KW)" : "(O, KH, KW, C/groups)"));
}

// Fills the weight's part of g and checks the channels against groups.
void weight_part(const Conv2dParams& p, const Shape& w, int64_t c, Conv2dGeometry& g, const std::string& what,
                 const char* c_role) {
  const ConvAxes a = conv_axes(p.layout);
  g.o = w[0];
  g.kh = w[a.wh];
  g.kw = w[a.ww];
  const int64_t wi = w[a.wi];
  if (c >= 0 && wi >= 0 && c != wi * p.groups)
    throw ShapeError(what + ": " + fmt::format("the {} has {} channels but the weights {} take {} per group x groups={} = {}",
                                 c_role, c, shape_str(w), wi, p.groups, wi * p.groups), "",
                     fmt::format("the {} layout puts channels on axis {} of the input and axis {} of the weights",
                                 layout_name(p.layout), a.c, a.wi));
  if (g.o >= 0 && g.o % p.groups != 0)
    throw ShapeError(what + ": " + fmt::format("the weights {} have {} output channels, not a multiple of groups={}",
                                 shape_str(w), g.o, p.groups), "", "each group makes O/groups output channels; O must divide evenly");
}

}  // namespace

Conv2dGeometry conv_geometry(const Conv2dParams& p, const Shape& x, const Shape& w, const std::string& what) {
  p.check(what);
  check_rank4(x, "input", what, p.layout);
  check_rank4(w, "weights", what, p.layout);
  const ConvAxes a = conv_axes(p.layout);
  Conv2dGeometry g;
  g.n = x[0];
  g.c = x[a.c];
  g.h = x[a.h];
  g.w = x[a.w];
  weight_part(p, w, g.c, g, what, "input");
  if (g.kh < 0 || g.kw < 0 || g.h < 0 || g.w < 0) {  // static shapes with unknown dims
    g.oh = g.ow = -1;
    if (g.kh >= 0 && g.kw >= 0) g.pad = p.resolved_pad(g.kh, g.kw);
    if (g.kh >= 0 && g.h >= 0) g.oh = conv_out_size(g.h, g.kh, p.stride[0], p.dilation[0], g.pad[0], g.pad[1]);
    if (g.kw >= 0 && g.w >= 0) g.ow = conv_out_size(g.w, g.kw, p.stride[1], p.dilation[1], g.pad[2], g.pad[3]);
    return g;
  }
  g.pad = p.resolved_pad(g.kh, g.kw);
  g.oh = conv_out_size(g.h, g.kh, p.stride[0], p.dilation[0], g.pad[0], g.pad[1]);
  g.ow = conv_out_size(g.w, g.kw, p.stride[1], p.dilation[1], g.pad[2], g.pad[3]);
  if (g.kh == 0 || g.kw == 0 || g.oh <= 0 || g.ow <= 0)
    throw ShapeError(what + ": " + fmt::format("the kernel {}x{} (dilation ({}, {})) does not fit the input's {}x{} padded by ({}, "
                                 "{}, {}, {})",
                                 g.kh, g.kw, p.dilation[0], p.dilation[1], g.h, g.w, g.pad[0], g.pad[1], g.pad[2],
                                 g.pad[3]), "", "pad the input, or use a smaller kernel or dilation");
  return g;
}

Conv2dGeometry conv_geometry_from_output(const Conv2dParams& p, const Shape& dy, const Shape& w, const Shape* x_like,
                                         const std::string& what) {
  p.check(what);
  check_rank4(dy, "output gradient", what, p.layout);
  check_rank4(w, "weights", what, p.layout);
  const ConvAxes a = conv_axes(p.layout);
  Conv2dGeometry g;
  g.n = dy[0];
  g.oh = dy[a.h];
  g.ow = dy[a.w];
  const int64_t o = dy[a.c];
  if (x_like) {
    check_rank4(*x_like, "input (the shape to take)", what, p.layout);
    g.c = (*x_like)[a.c];
    g.h = (*x_like)[a.h];
    g.w = (*x_like)[a.w];
  } else {
    g.c = w[a.wi] < 0 ? -1 : w[a.wi] * p.groups;
  }
  weight_part(p, w, g.c, g, what, "input");
  if (o >= 0 && g.o >= 0 && o != g.o)
    throw ShapeError(what + ": " + fmt::format("the output gradient {} has {} channels but the weights {} make {}", shape_str(dy), o,
                                 shape_str(w), g.o), "", fmt::format("axis {} of the output must match axis 0 of the weights", a.c));
  if (g.kh >= 0 && g.kw >= 0) g.pad = p.resolved_pad(g.kh, g.kw);
  if (!x_like) {
    g.h = g.kh < 0 || g.oh < 0 ? -1
                               : conv_transpose_out_size(g.oh, g.kh, p.stride[0], p.dilation[0], g.pad[0], g.pad[1],
                                                         p.output_padding[0]);
    g.w = g.kw < 0 || g.ow < 0 ? -1
                               : conv_transpose_out_size(g.ow, g.kw, p.stride[1], p.dilation[1], g.pad[2], g.pad[3],
                                                         p.output_padding[1]);
    if ((g.h >= 0 && g.h <= 0) || (g.w >= 0 && g.w <= 0))
      throw ShapeError(what + ": " + fmt::format("the transposed convolution of a {}x{} input by a {}x{} kernel with padding ({}, "
                                   "{}, {}, {}) has no rows or columns ({}x{})",
                                   g.oh, g.ow, g.kh, g.kw, g.pad[0], g.pad[1], g.pad[2], g.pad[3], g.h, g.w), "", "use less padding or a larger input");
  }
  if (g.h >= 0 && g.w >= 0 && g.kh >= 0 && g.kw >= 0 && g.oh >= 0 && g.ow >= 0) {
    const int64_t eh = conv_out_size(g.h, g.kh, p.stride[0], p.dilation[0], g.pad[0], g.pad[1]);
    const int64_t ew = conv_out_size(g.w, g.kw, p.stride[1], p.dilation[1], g.pad[2], g.pad[3]);
    if (eh != g.oh || ew != g.ow)
      throw ShapeError(what + ": " + fmt::format("the output gradient is {}x{} but a {}x{} input convolved by a {}x{} kernel gives "
                                   "{}x{}",
                                   g.oh, g.ow, g.h, g.w, g.kh, g.kw, eh, ew), "", "the output gradient must have the forward convolution's output shape");
  }
  return g;
}

}  // namespace tgc
