// Gradients of the conv ops, checked numerically with verify_grad (float64, small shapes):
// conv2d over a grid of strides, paddings, dilations, groups and both layouts; the transposed
// convolution; and second order (the gradient ops' own gradients).
#include <gtest/gtest.h>

#include <tgc/tgc.h>

namespace tgc {
namespace {

Tensor randn(const Shape& s, int64_t seed) { return RandomState(seed).randn(s); }

struct Case {
  std::array<int64_t, 2> stride, dilation;
  ConvPadding pad;
  int64_t groups;
  ConvLayout layout;
};

TEST(Conv2dGrad, AttributeGrid) {
  const Case cases[] = {
      {{1, 1}, {1, 1}, ConvPadding(0), 1, ConvLayout::NCHW},
      {{2, 1}, {1, 1}, ConvPadding(1, 0), 1, ConvLayout::NCHW},
      {{1, 1}, {2, 1}, ConvPadding::same(), 2, ConvLayout::NCHW},
      {{2, 2}, {1, 2}, ConvPadding(0, 1, 1, 0), 2, ConvLayout::NHWC},
      {{1, 1}, {1, 1}, ConvPadding::same(), 4, ConvLayout::NHWC},  // depthwise
  };
  int seed = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(seed);
    Conv2dOptions o{c.layout, c.stride, c.pad, c.dilation, c.groups};
    const bool nchw = c.layout == ConvLayout::NCHW;
    Shape xs = nchw ? Shape{2, 4, 5, 4} : Shape{2, 5, 4, 4};
    Shape ws = nchw ? Shape{4, 4 / c.groups, 2, 2} : Shape{4, 2, 2, 4 / c.groups};
    EXPECT_NO_THROW(verify_grad([&](const std::vector<Var>& v) { return conv2d(v[0], v[1], o); },
                                {randn(xs, ++seed), randn(ws, ++seed)}));
  }
}

TEST(ConvTranspose2dGrad, StridedWithOutputPadding) {
  Conv2dOptions o;
  o.stride = {2, 2};
  o.padding = ConvPadding(1);
  EXPECT_NO_THROW(verify_grad([&](const std::vector<Var>& v) { return conv_transpose2d(v[0], v[1], o, {1, 0}); },
                              {randn({1, 2, 3, 3}, 20), randn({2, 3, 3, 3}, 21)}));
}

TEST(Conv2dGrad, SecondOrderThroughTheGradientOps) {
  Conv2dOptions o;
  o.stride = {2, 1};
  o.padding = ConvPadding(1);
  // d/dx and d/dw of sum(grad_input) and sum(grad_weights): each rule's own gradients.
  EXPECT_NO_THROW(verify_grad(
      [&](const std::vector<Var>& v) { return conv2d_grad_input(v[0], v[1], zeros({1, 2, 4, 3}), o); },
      {randn({1, 3, 3, 4}, 22), randn({3, 2, 2, 2}, 23)}));
  EXPECT_NO_THROW(verify_grad(
      [&](const std::vector<Var>& v) { return conv2d_grad_weights(v[0], v[1], zeros({3, 2, 2, 2}), o); },
      {randn({1, 2, 4, 3}, 24), randn({1, 3, 3, 4}, 25)}));
}

}  // namespace
}  // namespace tgc
