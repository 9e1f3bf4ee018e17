// The attributes of a 2-d convolution (layout, stride, padding, dilation, groups) and the one
// place that turns them and concrete shapes into a geometry: every size a convolution library
// descriptor (oneDNN, cuDNN) or the reference loop needs, checked once with the user's values.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "runtime/export.h"
#include "runtime/shape.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

// Where the channels sit. NCHW: x (N, C, H, W), w (O, C/groups, KH, KW) (PyTorch, cuDNN's
// NCHW/KCRS). NHWC: x (N, H, W, C), w (O, KH, KW, C/groups) (cuDNN's NHWC/KRSC, oneDNN's
// nhwc/ohwi), so a descriptor is made from the attributes without a transpose.
enum class ConvLayout { NCHW, NHWC };

const char* layout_name(ConvLayout layout);

struct Conv2dParams {
  ConvLayout layout = ConvLayout::NCHW;
  std::array<int64_t, 2> stride{1, 1};
  std::array<int64_t, 2> dilation{1, 1};
  // Explicit padding: top, bottom, left, right. Ignored when `same` is set.
  std::array<int64_t, 4> pad{0, 0, 0, 0};
  // PyTorch's padding="same" (stride 1 only): total dilation*(k-1) per axis, the odd element
  // at the end (bottom / right). Resolved from the kernel's concrete size (resolved_pad).
  bool same = false;
  int64_t groups = 1;
  // conv_transpose2d's output_padding: extra rows/columns of the transposed output (< stride).
  std::array<int64_t, 2> output_padding{0, 0};

  // "layout=NCHW,stride=(1,1),pad=(0,0,0,0),dilation=(1,1),groups=1" (+ same, output_padding).
  std::string describe() const;
  // The padding for a kernel of kh x kw: explicit, or "same" resolved.
  std::array<int64_t, 4> resolved_pad(int64_t kh, int64_t kw) const;
  // Throws ValueError naming `what` (the user's call) when an attribute is out of range.
  void check(const std::string& what) const;
  bool operator==(const Conv2dParams&) const = default;
};

// Axis positions of a rank-4 activation / weight for a layout.
struct ConvAxes {
  int c, h, w;        // activation: channel, height, width (batch is axis 0)
  int wi, wh, ww;     // weight: input channels per group, kernel height, kernel width (O is 0)
};
ConvAxes conv_axes(ConvLayout layout);

// Every size of one convolution, in the forward direction's terms (x -> y).
struct Conv2dGeometry {
  int64_t n = 0, c = 0, h = 0, w = 0;      // input
  int64_t o = 0, kh = 0, kw = 0;           // weight (O, C/groups, KH, KW)
  int64_t oh = 0, ow = 0;                  // output
  std::array<int64_t, 4> pad{0, 0, 0, 0};  // resolved: top, bottom, left, right
};

// Output extent along one axis: floor((in + pads - dilation*(k-1) - 1) / stride) + 1 (may be
// <= 0 when the kernel does not fit; callers report that).
int64_t conv_out_size(int64_t in, int64_t k, int64_t stride, int64_t dilation, int64_t pad_lo, int64_t pad_hi);
// conv_transpose2d's output extent from its input extent `in` (the inverse of conv_out_size).
int64_t conv_transpose_out_size(int64_t in, int64_t k, int64_t stride, int64_t dilation, int64_t pad_lo,
                                int64_t pad_hi, int64_t output_padding);

// The geometry of conv2d(x, w): checks ranks, channels against groups, and that the (dilated)
// kernel fits the padded input; ShapeError names `what` and the user's values with a hint.
Conv2dGeometry conv_geometry(const Conv2dParams& p, const Shape& x, const Shape& w, const std::string& what);
// The same from the output side: x's spatial size given (from a tensor like x) or, when
// `x_like` is empty, derived from dy as conv_transpose2d does.
Conv2dGeometry conv_geometry_from_output(const Conv2dParams& p, const Shape& dy, const Shape& w, const Shape* x_like,
                                         const std::string& what);

// Activation / weight shapes of a geometry in the layout.
Shape conv_act_shape(ConvLayout layout, int64_t n, int64_t c, int64_t h, int64_t w);
Shape conv_weight_shape(ConvLayout layout, int64_t o, int64_t ci, int64_t kh, int64_t kw);

TGC_API_END
}  // namespace tgc
