// split_padding and interior_of (cudnn_padding.h).
#include "backends/cuda/cudnn_padding.h"

#include <algorithm>

namespace tgc::cuda {

PaddedConv split_padding(const Conv2dGeometry& g) {
  PaddedConv pc;
  pc.g = g;
  pc.pad_h = std::min(g.pad[0], g.pad[1]);
  pc.pad_w = std::min(g.pad[2], g.pad[3]);
  pc.extra = {g.pad[0] - pc.pad_h, g.pad[1] - pc.pad_h, g.pad[2] - pc.pad_w, g.pad[3] - pc.pad_w};
  pc.hp = g.h + pc.extra[0] + pc.extra[1];
  pc.wp = g.w + pc.extra[2] + pc.extra[3];
  return pc;
}

Interior interior_of(const PaddedConv& pc, ConvLayout layout) {
  const bool nchw = layout == ConvLayout::NCHW;
  const int64_t c = pc.g.c;
  const int64_t sn = c * pc.hp * pc.wp;
  const int64_t sc = nchw ? pc.hp * pc.wp : 1;
  const int64_t sh = nchw ? pc.wp : pc.wp * c;
  const int64_t sw = nchw ? 1 : c;
  return Interior{{sn, sc, sh, sw}, pc.extra[0] * sh + pc.extra[2] * sw};
}

}  // namespace tgc::cuda
