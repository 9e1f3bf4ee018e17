// The direct conv thunks (conv2d, its bias and relu, its input and weights' gradients, and
// conv_transpose2d) on each GPU API (PoCL's OpenCL in CI) against the ops' perform(): float64
// bit for bit (the reference loops), float32 within rounding (the host may run it through
// oneDNN); strides, asymmetric padding, dilation and groups in both layouts, and a strided
// input. Lean on purpose: PoCL spends about a second on each entry a test launches first.
#include "backends/gpu/conv_thunks.h"

#include <gtest/gtest.h>

#include "backends/gpu/fallback_kernel_rules.h"
#include "gpu_test_device.h"
#include "ops/conv/conv2d.h"
#include "ops/conv/fused_conv2d.h"
#include "ops/core/apply.h"
#include "rule_run.h"

namespace tgc {
namespace {

Tensor uniform(const Shape& shape, uint64_t seed, DType dtype) {
  RandomState rng(seed);
  return rng.uniform(-2, 2, shape).astype(dtype);
}

Tensor dev(const Tensor& host) { return host.to(gpu_test::device()); }

// `op` through the conv rule against perform() (rule_run.h).
void expect_matches_reference(std::shared_ptr<const Op> op, const std::vector<Tensor>& inputs) {
  gpu_test::expect_rule_matches_reference(gpu::fallback_kernel_rules(), "conv", std::move(op), inputs, 1e-5);
}

Conv2dParams params(ConvLayout layout, std::array<int64_t, 2> stride, std::array<int64_t, 4> pad,
                    std::array<int64_t, 2> dilation, int64_t groups) {
  Conv2dParams p;
  p.layout = layout;
  p.stride = stride;
  p.pad = pad;
  p.dilation = dilation;
  p.groups = groups;
  return p;
}

// conv2d, its bias (+ relu) form, and both gradients, of x (n, c, h, w in the layout) and w.
void expect_every_direction(const Conv2dParams& p, const Tensor& x, const Tensor& w, uint64_t seed) {
  SCOPED_TRACE(p.describe());
  const DType t = x.dtype();
  expect_matches_reference(std::make_shared<Conv2d>(p), {x, w});
  const Shape y = Conv2d(p).infer_shapes({x.shape(), w.shape()}).at(0);
  const Tensor bias = dev(uniform({w.shape()[0]}, seed, t)), dy = dev(uniform(y, seed + 1, t));
  expect_matches_reference(std::make_shared<FusedConv2d>(p, false), {x, w, bias});
  expect_matches_reference(std::make_shared<FusedConv2d>(p, true), {x, w, bias});
  expect_matches_reference(std::make_shared<Conv2dGradInput>(p, false), {dy, w, x});
  expect_matches_reference(std::make_shared<Conv2dGradWeights>(p), {x, dy, w});
}

TEST(GpuConvThunks, StridesPaddingDilationAndGroupsInBothLayouts) {
  TGC_REQUIRE_GPU();
  for (DType t : {DType::Float64, DType::Float32}) {
    SCOPED_TRACE(dtype_name(t));
    // NCHW: x (2, 4, 7, 6), w (6, 2, 3, 2): two groups, stride (2, 1), padding 1/0 rows and
    // 2/1 columns, dilation (1, 2).
    expect_every_direction(params(ConvLayout::NCHW, {2, 1}, {1, 0, 2, 1}, {1, 2}, 2),
                           dev(uniform({2, 4, 7, 6}, 1, t)), dev(uniform({6, 2, 3, 2}, 2, t)), 3);
    // NHWC: x (2, 6, 5, 3), w (4, 3, 3, 3) (O, KH, KW, C), stride 1, symmetric padding.
    expect_every_direction(params(ConvLayout::NHWC, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1),
                           dev(uniform({2, 6, 5, 3}, 4, t)), dev(uniform({4, 3, 3, 3}, 5, t)), 6);
  }
}

TEST(GpuConvThunks, TransposedConvolutionAndAStridedInput) {
  TGC_REQUIRE_GPU();
  // conv_transpose2d is Conv2dGradInput without x's shape: stride 2 with an output padding.
  Conv2dParams p = params(ConvLayout::NCHW, {2, 2}, {1, 1, 1, 1}, {1, 1}, 1);
  p.output_padding = {1, 0};
  expect_matches_reference(std::make_shared<Conv2dGradInput>(p, true),
                           {dev(uniform({2, 3, 4, 5}, 7, DType::Float64)), dev(uniform({3, 2, 3, 3}, 8, DType::Float64))});
  // x read through a transpose of its spatial dims (no dim dense).
  const Tensor x = dev(uniform({1, 2, 6, 5}, 9, DType::Float64)).transpose({0, 1, 3, 2});
  expect_every_direction(params(ConvLayout::NCHW, {1, 2}, {0, 1, 1, 0}, {1, 1}, 1), x,
                         dev(uniform({3, 2, 2, 3}, 10, DType::Float64)), 11);
}

}  // namespace
}  // namespace tgc
