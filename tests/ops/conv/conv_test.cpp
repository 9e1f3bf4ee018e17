// The conv ops' reference evaluation and rules: hand-computed values, the identities that tie
// the layouts, groups, dilation, the transposed convolution and the gradients together, and
// the errors that name the user's values.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "ops/conv/conv2d.h"
#include "support/graph_eval.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;

Tensor randn(const Shape& s, int64_t seed) { return RandomState(seed).randn(s); }
Tensor nhwc(const Tensor& t) { return t.transpose({0, 2, 3, 1}).copy(); }  // NCHW -> NHWC (OIHW -> OHWI)

Tensor conv(const Tensor& x, const Tensor& w, Conv2dParams p) { return test::run_op(Conv2d(p), {x, w}); }

TEST(Conv2d, HandComputedValues) {
  // x = 0..15 on a 4x4 grid, w = [[1, 0], [0, -1]]: y[i][j] = x[i][j] - x[i+1][j+1] = -5.
  Tensor x = test::iota({1, 1, 4, 4});
  Tensor w = Tensor::from_vector<double>({1, 0, 0, -1}, {1, 1, 2, 2});
  test::expect_same(conv(x, w, {}), Tensor::full(DType::Float64, {1, 1, 3, 3}, -5.0));
  // Stride 2 and padding 1: the corners see one element of x each.
  Conv2dParams p;
  p.stride = {2, 2};
  p.pad = {1, 1, 1, 1};
  Tensor y = conv(x, w, p);
  ASSERT_EQ(y.shape(), (Shape{1, 1, 3, 3}));
  EXPECT_EQ(y.at({0, 0, 0, 0}), -0.0 - 0.0);  // x[-1][-1] - x[0][0] = 0 - 0
  EXPECT_EQ(y.at({0, 0, 1, 1}), 5.0 - 10.0);  // x[1][1] - x[2][2]
  EXPECT_EQ(y.at({0, 0, 2, 2}), 15.0);        // x[3][3] - padding
}

TEST(Conv2d, OneByOneKernelIsAMatrixProduct) {
  Tensor x = randn({2, 3, 2, 2}, 1), w = randn({4, 3, 1, 1}, 2);
  Tensor y = conv(x, w, {});
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t o = 0; o < 4; ++o) {
      double want = 0;
      for (int64_t c = 0; c < 3; ++c) want += w.at({o, c, 0, 0}) * x.at({n, c, 1, 0});
      EXPECT_NEAR(y.at({n, o, 1, 0}), want, 1e-12);
    }
}

TEST(Conv2d, NhwcMatchesNchw) {
  Tensor x = randn({2, 3, 5, 6}, 3), w = randn({4, 3, 3, 2}, 4);
  Conv2dParams p;
  p.stride = {2, 1};
  p.pad = {1, 0, 2, 1};
  p.dilation = {1, 2};
  Tensor want = conv(x, w, p);
  p.layout = ConvLayout::NHWC;
  test::expect_close(conv(nhwc(x), nhwc(w), p), nhwc(want));
}

TEST(Conv2d, GroupsAreSeparateConvolutions) {
  Tensor x = randn({1, 4, 4, 4}, 5), w = randn({6, 2, 3, 3}, 6);
  Conv2dParams p;
  p.groups = 2;
  Tensor y = conv(x, w, p);
  for (int64_t g = 0; g < 2; ++g) {
    Tensor part = conv(test::slice_view(x, 1, 2 * g, 2 * g + 2).copy(), test::slice_view(w, 0, 3 * g, 3 * g + 3).copy(), {});
    test::expect_close(test::slice_view(y, 1, 3 * g, 3 * g + 3).copy(), part);
  }
}

TEST(Conv2d, DilationIsAKernelWithHoles) {
  Tensor x = randn({1, 2, 6, 6}, 7), w = randn({3, 2, 2, 2}, 8);
  Tensor holes = Tensor::zeros(DType::Float64, {3, 2, 3, 3});
  for (int64_t o = 0; o < 3; ++o)
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < 2; ++j) holes.data<double>()[((o * 2 + c) * 3 + 2 * i) * 3 + 2 * j] = w.at({o, c, i, j});
  Conv2dParams p;
  p.dilation = {2, 2};
  test::expect_close(conv(x, w, p), conv(x, holes, {}));
}

TEST(Conv2d, SamePaddingKeepsTheSize) {
  Conv2dParams p;
  p.same = true;
  p.dilation = {1, 2};
  Tensor y = conv(randn({1, 1, 5, 4}, 9), randn({2, 1, 4, 3}, 10), p);
  EXPECT_EQ(y.shape(), (Shape{1, 2, 5, 4}));
  // An even kernel puts the odd padding row at the bottom, as PyTorch does.
  EXPECT_EQ(p.resolved_pad(4, 3), (std::array<int64_t, 4>{1, 2, 2, 2}));
}

TEST(Conv2d, NonContiguousAndFloat32Inputs) {
  Tensor x = randn({1, 2, 4, 5}, 11), w = randn({2, 2, 2, 2}, 12);
  Tensor want = conv(x, w, {});
  test::expect_close(conv(test::fortran_layout(x), test::reversed_layout(w, 3), {}), want);
  Tensor y32 = conv(x.astype(DType::Float32), w.astype(DType::Float32), {});
  EXPECT_EQ(y32.dtype(), DType::Float32);
  test::expect_close(y32.astype(DType::Float64), want, 1e-5, 1e-5);
}

TEST(Conv2d, AdjointIdentities) {
  // <conv(x, w), dy> = <x, grad_input(dy, w)> = <w, grad_weights(x, dy)>, with every attribute.
  Conv2dParams p;
  p.stride = {2, 1};
  p.pad = {1, 2, 0, 1};
  p.dilation = {2, 1};
  p.groups = 2;
  for (ConvLayout layout : {ConvLayout::NCHW, ConvLayout::NHWC}) {
    p.layout = layout;
    Tensor x = randn({2, 4, 7, 5}, 13), w = randn({6, 2, 2, 3}, 14);
    if (layout == ConvLayout::NHWC) x = nhwc(x), w = nhwc(w);
    Tensor y = conv(x, w, p);
    Tensor dy = randn(y.shape(), 15);
    Tensor dx = test::run_op(Conv2dGradInput(p, false), {dy, w, x});
    Tensor dw = test::run_op(Conv2dGradWeights(p), {x, dy, w});
    auto dotp = [](const Tensor& a, const Tensor& b) {
      std::vector<double> va = a.to_vector<double>(), vb = b.to_vector<double>();
      double s = 0;
      for (size_t i = 0; i < va.size(); ++i) s += va[i] * vb[i];
      return s;
    };
    EXPECT_EQ(dx.shape(), x.shape());
    EXPECT_EQ(dw.shape(), w.shape());
    EXPECT_NEAR(dotp(y, dy), dotp(x, dx), 1e-9);
    EXPECT_NEAR(dotp(y, dy), dotp(w, dw), 1e-9);
  }
}

TEST(ConvTranspose2d, SizesFollowPyTorch) {
  Conv2dParams p;
  p.stride = {2, 2};
  p.pad = {1, 1, 1, 1};
  p.output_padding = {1, 0};
  // (H - 1) * 2 - 2 + (3 - 1) + 1 + output_padding: 3 -> 6 (+1) rows, 4 -> 7 columns.
  Tensor y = test::run_op(Conv2dGradInput(p, true), {randn({1, 2, 3, 4}, 16), randn({2, 5, 3, 3}, 17)});
  EXPECT_EQ(y.shape(), (Shape{1, 5, 6, 7}));
}

TEST(ConvErrors, NameTheUsersValues) {
  Var x = tensor("x", DType::Float32, {2, 3, 8, 8});
  Var w = tensor("w", DType::Float32, {4, 2, 3, 3});
  try {
    conv2d(x, w);
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("conv2d: the input has 3 channels but the weights (4, 2, 3, 3) take 2 per group"));
    EXPECT_THAT(e.what(), HasSubstr("conv2d(x, w)"));
    EXPECT_THAT(e.hint(), HasSubstr("axis 1"));
  }
  Var big = tensor("k", DType::Float32, {4, 3, 9, 9});
  EXPECT_THROW(conv2d(x, big), ShapeError);
  Conv2dOptions o;
  o.stride = {2, 2};
  o.padding = ConvPadding::same();
  try {
    conv2d(x, tensor("w3", DType::Float32, {4, 3, 3, 3}), o);
    ADD_FAILURE() << "no error";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("padding=\"same\" with stride (2, 2)"));
  }
  o = {};
  o.groups = 2;
  EXPECT_THROW(conv2d(x, tensor("w4", DType::Float32, {3, 1, 3, 3}), o), ShapeError);  // 3 channels, 2 groups
  EXPECT_THROW(conv2d(matrix("m"), w), ShapeError);
  EXPECT_THROW(conv2d(tensor("i", DType::Int32, {2, 3, 8, 8}), w), TypeError);
}

TEST(ConvApi, BuildsNamedOps) {
  Var x = tensor4("x", DType::Float32), w = tensor4("w", DType::Float32);
  Conv2dOptions o;
  o.padding = ConvPadding(1);
  o.layout = ConvLayout::NHWC;
  EXPECT_EQ(test::op_name(conv2d(x, w, o)),
            "Conv2d{layout=NHWC,stride=(1,1),pad=(1,1,1,1),dilation=(1,1),groups=1}");
  Var g = grad(sum(conv2d(x, w)), {x, w})[1];
  EXPECT_THAT(test::op_name(g), HasSubstr("Conv2dGradWeights{"));
}

}  // namespace
}  // namespace tgc
