// How a convolution's padding is given to cuDNN, whose convolution pads both sides of an axis
// alike: the common part is cuDNN's, the rest (PyTorch's "same" with an even kernel, explicit
// (top, bottom, left, right)) rows and columns the thunk adds to the input itself, copying it
// into a zeroed larger tensor. Plain arithmetic over conv_geometry, so it is tested without a GPU.
#pragma once

#include <array>
#include <cstdint>

#include "ops/conv/conv_params.h"

namespace tgc::cuda {

struct PaddedConv {
  Conv2dGeometry g;
  int64_t pad_h = 0, pad_w = 0;              // symmetric, cuDNN's
  std::array<int64_t, 4> extra{0, 0, 0, 0};  // added by the thunk: top, bottom, left, right
  int64_t hp = 0, wp = 0;                    // the input's extent with the extra rows and columns
  bool padded() const { return extra != std::array<int64_t, 4>{0, 0, 0, 0}; }
};

PaddedConv split_padding(const Conv2dGeometry& g);

// Where the unpadded input sits inside the padded one of `layout` (dense): the element strides
// of (n, c, h, w) there, and the element offset of its first element.
struct Interior {
  std::array<int64_t, 4> strides;
  int64_t offset;
};
Interior interior_of(const PaddedConv& pc, ConvLayout layout);

}  // namespace tgc::cuda
