// The pool thunks (max and average 2-d pooling and their gradients) on each GPU API (PoCL's
// OpenCL in CI) against the ops' perform(): float64 bit for bit (the reference loops), float32
// within rounding (the host may run it through oneDNN); a grid of windows, strides, paddings,
// ceil mode and the average's divisor in both layouts, a strided input, NaN and infinities in
// windows (the first maximum, a NaN winning, gets the gradient), and the rule that declines
// mixed dtypes. Lean on purpose: PoCL spends about a second on each entry a test launches first.
#include "backends/gpu/pool_thunks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "backends/gpu/fallback_kernel_rules.h"
#include "gpu_test_device.h"
#include "ops/core/apply.h"
#include "ops/pool/pool2d.h"
#include "rule_run.h"

namespace tgc {
namespace {

Tensor uniform(const Shape& shape, uint64_t seed, DType dtype) {
  RandomState rng(seed);
  return rng.uniform(-4, 4, shape).astype(dtype);
}

Tensor dev(const Tensor& host) { return host.to(gpu_test::device()); }

// `op` through the pool rule against perform() (rule_run.h).
void expect_matches_reference(std::shared_ptr<const Op> op, const std::vector<Tensor>& inputs) {
  gpu_test::expect_rule_matches_reference(gpu::fallback_kernel_rules(), "pool", std::move(op), inputs, 1e-6);
}

Pool2dParams params(PoolMode mode, ConvLayout layout, std::array<int64_t, 2> kernel, std::array<int64_t, 2> stride,
                    std::array<int64_t, 2> pad, bool ceil_mode, bool include_pad = true) {
  Pool2dParams p;
  p.mode = mode;
  p.layout = layout;
  p.kernel = kernel;
  p.stride = stride;
  p.pad = pad;
  p.ceil_mode = ceil_mode;
  p.count_include_pad = include_pad;
  return p;
}

// The forward pass and the gradient of `p` on x (and a random output gradient).
void expect_both_directions(const Pool2dParams& p, const Tensor& x, uint64_t seed) {
  SCOPED_TRACE(p.describe());
  expect_matches_reference(std::make_shared<Pool2d>(p), {x});
  const Shape y = Pool2d(p).infer_shapes({x.shape()}).at(0);
  expect_matches_reference(std::make_shared<Pool2dGrad>(p), {x, dev(uniform(y, seed, x.dtype()))});
}

TEST(GpuPoolThunks, WindowsStridesPaddingAndCeilModeInBothLayouts) {
  TGC_REQUIRE_GPU();
  for (DType t : {DType::Float64, DType::Float32}) {
    SCOPED_TRACE(dtype_name(t));
    const Tensor nchw = dev(uniform({2, 3, 7, 6}, 1, t)), nhwc = dev(uniform({2, 7, 6, 3}, 2, t));
    for (PoolMode mode : {PoolMode::Max, PoolMode::Avg}) {
      expect_both_directions(params(mode, ConvLayout::NCHW, {2, 2}, {2, 2}, {0, 0}, false), nchw, 3);
      // Overlapping windows (stride below the kernel), padding, and ceil mode's last window.
      expect_both_directions(params(mode, ConvLayout::NCHW, {3, 2}, {2, 1}, {1, 1}, true), nchw, 4);
      expect_both_directions(params(mode, ConvLayout::NHWC, {3, 3}, {2, 2}, {1, 0}, true, false), nhwc, 5);
    }
    // The average's divisor with the padding counted, where ceil mode's window passes it.
    expect_both_directions(params(PoolMode::Avg, ConvLayout::NHWC, {3, 3}, {2, 3}, {1, 1}, true, true), nhwc, 6);
  }
}

TEST(GpuPoolThunks, AStridedInputIsReadInPlace) {
  TGC_REQUIRE_GPU();
  // (2, 3, 6, 7) read through a transpose of its last two dims: no dim is dense.
  const Tensor x = dev(uniform({2, 3, 7, 6}, 7, DType::Float64)).transpose({0, 1, 3, 2});
  expect_both_directions(params(PoolMode::Max, ConvLayout::NCHW, {3, 3}, {2, 2}, {1, 1}, false), x, 8);
  expect_both_directions(params(PoolMode::Avg, ConvLayout::NCHW, {2, 3}, {1, 2}, {0, 1}, true), x, 9);
}

TEST(GpuPoolThunks, NaNAndInfinitiesInWindowsFollowTheReference) {
  TGC_REQUIRE_GPU();
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  // One 4 x 4 plane, 2 x 2 windows: plain, a NaN after a larger value (the NaN wins), ties
  // (the first gets the gradient), infinities.
  const Tensor x = dev(Tensor::from_vector(std::vector<double>{1, 2, 5, nan,  //
                                                               3, 0, 1, 9,    //
                                                               7, 7, -inf, -inf,
                                                               7, 7, -inf, inf},
                                           {1, 1, 4, 4}));
  for (PoolMode mode : {PoolMode::Max, PoolMode::Avg})
    expect_both_directions(params(mode, ConvLayout::NCHW, {2, 2}, {2, 2}, {0, 0}, false), x, 10);
}

TEST(GpuPoolThunks, TheRuleDeclinesAGradientOfAnotherDtype) {
  const VarPtr x = Variable::input(Type(DType::Float32, {1, 1, 4, 4}), "x");
  const VarPtr g = Variable::input(Type(DType::Float64, {1, 1, 2, 2}), "g");
  const VarPtr gx = apply(std::make_shared<Pool2dGrad>(Pool2dParams{}), {x, g}).at(0);
  std::string why;
  EXPECT_EQ(gpu::find_rule(gpu::fallback_kernel_rules(), *gx->owner(), &why), nullptr);
  EXPECT_EQ(why, "operands of another dtype than the first");
}

}  // namespace
}  // namespace tgc
