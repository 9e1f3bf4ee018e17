// The split of a convolution's padding into cuDNN's symmetric part and the rows and columns the
// thunk adds (no GPU: plain arithmetic): the sides add up, the padded problem has the output
// size cuDNN checks against, and every input element lands where the padded tensor's dense
// layout puts it, in both layouts.
#include "backends/cuda/cudnn_padding.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace tgc {
namespace {

using cuda::interior_of;
using cuda::split_padding;

// The element index of (n, c, h, w) in a dense (N, C, H, W) activation stored in `layout`.
int64_t dense_index(ConvLayout layout, int64_t c_, int64_t h_, int64_t w_, int64_t n, int64_t c, int64_t h, int64_t w) {
  if (layout == ConvLayout::NCHW) return ((n * c_ + c) * h_ + h) * w_ + w;
  return ((n * h_ + h) * w_ + w) * c_ + c;
}

TEST(CudnnPadding, SidesAddUpOutputsMatchAndTheInputLandsInsideThePaddedTensor) {
  struct Row {
    std::array<int64_t, 4> pad;  // top, bottom, left, right
    bool same;                   // PyTorch's "same" instead (stride 1)
    std::array<int64_t, 2> stride, dilation, kernel;
  };
  const Row rows[] = {
      {{0, 0, 0, 0}, false, {1, 1}, {1, 1}, {3, 3}}, {{1, 1, 1, 1}, false, {2, 2}, {1, 1}, {3, 3}},
      {{1, 0, 2, 1}, false, {2, 1}, {1, 2}, {3, 2}}, {{2, 0, 1, 1}, false, {1, 2}, {2, 1}, {3, 2}},
      {{0, 0, 0, 0}, true, {1, 1}, {1, 1}, {3, 2}},  {{0, 0, 0, 0}, true, {1, 1}, {1, 2}, {4, 2}},
  };
  for (ConvLayout layout : {ConvLayout::NCHW, ConvLayout::NHWC})
    for (const Row& r : rows) {
      Conv2dParams p;
      p.layout = layout;
      p.stride = r.stride;
      p.dilation = r.dilation;
      p.pad = r.pad;
      p.same = r.same;
      const int64_t n = 2, c = 3, h = 7, w = 6;
      const Conv2dGeometry g =
          conv_geometry(p, conv_act_shape(layout, n, c, h, w), conv_weight_shape(layout, 4, c, r.kernel[0], r.kernel[1]), "test");
      SCOPED_TRACE(std::string(layout_name(layout)) + " pad " + std::to_string(g.pad[0]) + "," + std::to_string(g.pad[1]) +
                   "," + std::to_string(g.pad[2]) + "," + std::to_string(g.pad[3]));
      const cuda::PaddedConv pc = split_padding(g);
      EXPECT_EQ(pc.pad_h + pc.extra[0], g.pad[0]);
      EXPECT_EQ(pc.pad_h + pc.extra[1], g.pad[1]);
      EXPECT_EQ(pc.pad_w + pc.extra[2], g.pad[2]);
      EXPECT_EQ(pc.pad_w + pc.extra[3], g.pad[3]);
      EXPECT_EQ(std::min(pc.extra[0], pc.extra[1]), 0);
      EXPECT_EQ(std::min(pc.extra[2], pc.extra[3]), 0);
      EXPECT_EQ(pc.padded(), g.pad[0] != g.pad[1] || g.pad[2] != g.pad[3]);
      // cuDNN's output size of the padded problem with its symmetric padding is the op's.
      EXPECT_EQ(conv_out_size(pc.hp, g.kh, p.stride[0], p.dilation[0], pc.pad_h, pc.pad_h), g.oh);
      EXPECT_EQ(conv_out_size(pc.wp, g.kw, p.stride[1], p.dilation[1], pc.pad_w, pc.pad_w), g.ow);
      const cuda::Interior in = interior_of(pc, layout);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t ch = 0; ch < c; ++ch)
          for (int64_t y = 0; y < h; ++y)
            for (int64_t x = 0; x < w; ++x)
              ASSERT_EQ(in.offset + i * in.strides[0] + ch * in.strides[1] + y * in.strides[2] + x * in.strides[3],
                        dense_index(layout, c, pc.hp, pc.wp, i, ch, y + pc.extra[0], x + pc.extra[2]))
                  << "element (" << i << ", " << ch << ", " << y << ", " << x << ")";
    }
}

}  // namespace
}  // namespace tgc
