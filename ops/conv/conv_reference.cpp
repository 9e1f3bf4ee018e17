// conv_reference: the convolution's index walk, shared by the forward pass and both gradients.
#include "ops/conv/conv_reference.h"

#include "ops/core/op.h"

namespace tgc {

std::vector<double> to_nchw_doubles(const Tensor& t, ConvLayout layout) {
  if (layout == ConvLayout::NCHW) return t.to_vector<double>();
  return t.transpose({0, 3, 1, 2}).to_vector<double>();
}

void from_nchw_doubles(const std::vector<double>& v, const Shape& nchw, ConvLayout layout, DType dtype, Tensor& out) {
  const Tensor src = Tensor::from_vector<double>(v, nchw);
  if (layout == ConvLayout::NCHW) {
    copy_elements(src, ensure_output(out, dtype, nchw));
    return;
  }
  Tensor& o = ensure_output(out, dtype, {nchw[0], nchw[2], nchw[3], nchw[1]});
  copy_elements(src, o.transpose({0, 3, 1, 2}));
}

void conv_reference(ConvDirection dir, const Conv2dParams& p, const Conv2dGeometry& g, const Tensor& a,
                    const Tensor& b, DType dtype, Tensor& out) {
  const std::vector<double> va = to_nchw_doubles(a, p.layout), vb = to_nchw_doubles(b, p.layout);
  const int64_t cg = g.c / p.groups, og = g.o / p.groups;
  const Shape x_shape{g.n, g.c, g.h, g.w}, w_shape{g.o, cg, g.kh, g.kw}, y_shape{g.n, g.o, g.oh, g.ow};
  const Shape& r_shape = dir == ConvDirection::Forward ? y_shape : dir == ConvDirection::GradInput ? x_shape : w_shape;
  std::vector<double> r(static_cast<size_t>(shape_numel(r_shape)), 0.0);
  // Flat indices of x, w and y for one (n, group's channel, position) triple.
  auto xi = [&](int64_t n, int64_t c, int64_t h, int64_t w) { return ((n * g.c + c) * g.h + h) * g.w + w; };
  auto wi = [&](int64_t o, int64_t c, int64_t kh, int64_t kw) { return ((o * cg + c) * g.kh + kh) * g.kw + kw; };
  auto yi = [&](int64_t n, int64_t o, int64_t h, int64_t w) { return ((n * g.o + o) * g.oh + h) * g.ow + w; };
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t o = 0; o < g.o; ++o) {
      const int64_t c0 = (o / og) * cg;  // the group's first input channel
      for (int64_t oh = 0; oh < g.oh; ++oh)
        for (int64_t ow = 0; ow < g.ow; ++ow)
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t kh = 0; kh < g.kh; ++kh) {
              const int64_t ih = oh * p.stride[0] - g.pad[0] + kh * p.dilation[0];
              if (ih < 0 || ih >= g.h) continue;
              for (int64_t kw = 0; kw < g.kw; ++kw) {
                const int64_t iw = ow * p.stride[1] - g.pad[2] + kw * p.dilation[1];
                if (iw < 0 || iw >= g.w) continue;
                const int64_t x = xi(n, c0 + c, ih, iw), w = wi(o, c, kh, kw), y = yi(n, o, oh, ow);
                switch (dir) {
                  case ConvDirection::Forward: r[y] += va[x] * vb[w]; break;
                  case ConvDirection::GradInput: r[x] += va[y] * vb[w]; break;
                  case ConvDirection::GradWeights: r[w] += va[x] * vb[y]; break;
                }
              }
            }
    }
  from_nchw_doubles(r, r_shape, p.layout, dtype, out);
}

}  // namespace tgc
