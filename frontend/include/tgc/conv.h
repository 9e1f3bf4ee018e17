// Public API: convolutional layers — conv2d (NCHW or NHWC, stride, padding "valid"/"same"/
// explicit, dilation, groups), its two gradients as functions of their own, conv_transpose2d,
// and max/average pooling. Cross-correlation as in PyTorch and cuDNN (no kernel flip).
// See docs/conv.md.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include <tgc/var.h>

#include "ops/conv/conv_params.h"
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

// Padding of a convolution: valid() (none, the default), same() (output size = input size;
// stride 1 only, the odd element at the bottom/right as in PyTorch), or explicit counts.
struct ConvPadding {
  ConvPadding() = default;
  ConvPadding(int64_t both) : pad{both, both, both, both} {}  // NOLINT: implicit by design
  ConvPadding(int64_t h, int64_t w) : pad{h, h, w, w} {}
  ConvPadding(int64_t top, int64_t bottom, int64_t left, int64_t right) : pad{top, bottom, left, right} {}
  static ConvPadding valid() { return {}; }
  static ConvPadding same() {
    ConvPadding p;
    p.is_same = true;
    return p;
  }
  std::array<int64_t, 4> pad{0, 0, 0, 0};
  bool is_same = false;
};

struct Conv2dOptions {
  // NCHW: x (N, C, H, W), w (O, C/groups, KH, KW); NHWC: x (N, H, W, C), w (O, KH, KW, C/groups).
  ConvLayout layout = ConvLayout::NCHW;
  std::array<int64_t, 2> stride{1, 1};
  ConvPadding padding{};
  std::array<int64_t, 2> dilation{1, 1};
  int64_t groups = 1;  // depthwise: groups = C, w (C*multiplier, 1, KH, KW)
};

Var conv2d(const Var& x, const Var& w, const Conv2dOptions& options = {});
// The gradient of conv2d(x, w) with respect to x given dy (x_like: any tensor of x's shape).
Var conv2d_grad_input(const Var& dy, const Var& w, const Var& x_like, const Conv2dOptions& options = {});
// The gradient of conv2d(x, w) with respect to w given dy (w_like: any tensor of w's shape).
Var conv2d_grad_weights(const Var& x, const Var& dy, const Var& w_like, const Conv2dOptions& options = {});
// PyTorch's conv_transpose2d: w is (C_in, C_out/groups, KH, KW) in NCHW (the weights of the
// convolution it transposes); output_padding (< stride) adds rows/columns at the end.
Var conv_transpose2d(const Var& x, const Var& w, const Conv2dOptions& options = {},
                     std::array<int64_t, 2> output_padding = {0, 0});

struct Pool2dOptions {
  ConvLayout layout = ConvLayout::NCHW;
  std::optional<std::array<int64_t, 2>> stride;  // default: the kernel
  std::array<int64_t, 2> padding{0, 0};          // at most half the kernel
  bool ceil_mode = false;
  bool count_include_pad = true;  // avg_pool2d: the divisor counts padded cells
};

Var max_pool2d(const Var& x, std::array<int64_t, 2> kernel, const Pool2dOptions& options = {});
Var avg_pool2d(const Var& x, std::array<int64_t, 2> kernel, const Pool2dOptions& options = {});

TGC_API_END
}  // namespace tgc
