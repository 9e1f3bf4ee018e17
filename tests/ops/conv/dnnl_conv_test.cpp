// The oneDNN path of the conv ops (float32) against the reference loops (float64) over a
// grid of strides, paddings, dilations, groups and both layouts, in all three directions and
// with bias and relu fused; skipped in a build without oneDNN.
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "ops/conv/conv2d.h"
#include "ops/conv/dnnl_conv.h"
#include "ops/blas/dnnl_gemm.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

Tensor randn(const Shape& s, int64_t seed) { return RandomState(seed).randn(s); }
Tensor f32(const Tensor& t) { return t.astype(DType::Float32); }

TEST(DnnlConv, MatchesTheReferenceInEveryDirection) {
  if (!dnnl_available()) GTEST_SKIP() << "built without oneDNN";
  struct Grid {
    std::array<int64_t, 2> stride, dilation;
    std::array<int64_t, 4> pad;
    int64_t groups;
  };
  const Grid grid[] = {{{1, 1}, {1, 1}, {0, 0, 0, 0}, 1},
                       {{2, 1}, {1, 2}, {1, 0, 2, 1}, 2},
                       {{1, 2}, {2, 1}, {1, 1, 1, 1}, 4}};
  int seed = 0;
  for (ConvLayout layout : {ConvLayout::NCHW, ConvLayout::NHWC})
    for (const Grid& c : grid) {
      Conv2dParams p;
      p.layout = layout;
      p.stride = c.stride;
      p.dilation = c.dilation;
      p.pad = c.pad;
      p.groups = c.groups;
      SCOPED_TRACE(p.describe());
      Tensor x = randn(conv_act_shape(layout, 2, 4, 7, 6), ++seed);
      Tensor w = randn(conv_weight_shape(layout, 8, 4 / c.groups, 3, 2), ++seed);
      Tensor y = test::run_op(Conv2d(p), {x, w});
      Tensor dy = randn(y.shape(), ++seed);
      Tensor y32 = test::run_op(Conv2d(p), {f32(x), f32(w)});
      ASSERT_EQ(y32.dtype(), DType::Float32);
      test::expect_close(y32.astype(DType::Float64), y, 1e-4, 1e-4);
      test::expect_close(test::run_op(Conv2dGradInput(p, false), {f32(dy), f32(w), f32(x)}).astype(DType::Float64),
                         test::run_op(Conv2dGradInput(p, false), {dy, w, x}), 1e-4, 1e-4);
      test::expect_close(test::run_op(Conv2dGradWeights(p), {f32(x), f32(dy), f32(w)}).astype(DType::Float64),
                         test::run_op(Conv2dGradWeights(p), {x, dy, w}), 1e-4, 1e-4);
    }
}

TEST(DnnlConv, TransposedWithOutputPadding) {
  if (!dnnl_available()) GTEST_SKIP() << "built without oneDNN";
  Conv2dParams p;
  p.stride = {2, 3};
  p.pad = {1, 1, 0, 2};
  p.output_padding = {1, 2};
  Tensor x = randn({1, 4, 3, 4}, 4), w = randn({4, 2, 3, 3}, 5);
  test::expect_close(test::run_op(Conv2dGradInput(p, true), {f32(x), f32(w)}).astype(DType::Float64),
                     test::run_op(Conv2dGradInput(p, true), {x, w}), 1e-4, 1e-4);
}

TEST(DnnlConv, BiasAndReluPostOp) {
  if (!dnnl_available()) GTEST_SKIP() << "built without oneDNN";
  Conv2dParams p;
  p.layout = ConvLayout::NHWC;
  p.pad = {1, 1, 1, 1};
  Tensor x = randn({2, 5, 5, 3}, 1), w = randn({4, 3, 3, 3}, 2), bias = randn({4}, 3);
  Conv2dGeometry g = conv_geometry(p, x.shape(), w.shape(), "test");
  Tensor got;
  dnnl_conv(ConvDirection::Forward, p, g, f32(x), f32(w), f32(bias), true, got);
  Tensor y = test::run_op(Conv2d(p), {x, w});
  std::vector<double> want = y.to_vector<double>();
  for (size_t i = 0; i < want.size(); ++i) want[i] = std::max(0.0, want[i] + bias.at({static_cast<int64_t>(i % 4)}));
  test::expect_close(got.astype(DType::Float64), Tensor::from_vector(want, y.shape()), 1e-4, 1e-4);
}

}  // namespace
}  // namespace tgc
