// Pooling through cuDNN on a real GPU (label gpu) against the reference perform: max and
// average, both layouts, padding, ceil_mode (a partial last window), the average's divisor with
// and without the padding counted, and their gradients, in float32 and float64; the one case
// the rule declines (an average counting padding over a window past it, in ceil_mode) stays on
// the host with its reason.
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "cuda_test_util.h"

namespace tgc {
namespace {

using cuda_test::expect_cuda_matches_cpu;
using cuda_test::on;
using cuda_test::uniform_signed;

struct Case {
  std::array<int64_t, 2> kernel, stride, pad;
  bool ceil, include_pad;
};

TEST(CudnnPool, MaxAndAverageWithGradients) {
  TGC_REQUIRE_CUDNN();
  const Case cases[] = {
      {{2, 2}, {2, 2}, {0, 0}, false, true},
      {{3, 2}, {2, 2}, {1, 1}, true, true},   // ceil_mode: no window past the padding here
      {{3, 3}, {2, 2}, {1, 1}, true, false},  // ceil_mode with a partial last window, padding not counted
      {{3, 3}, {1, 2}, {1, 0}, false, true},
  };
  for (DType dt : {DType::Float32, DType::Float64})
    for (ConvLayout layout : {ConvLayout::NCHW, ConvLayout::NHWC})
      for (const Case& c : cases) {
        SCOPED_TRACE(std::string(dtype_name(dt)) + " " + layout_name(layout) + " kernel " +
                     std::to_string(c.kernel[0]) + "x" + std::to_string(c.kernel[1]) + (c.ceil ? " ceil" : ""));
        const Shape xs = layout == ConvLayout::NCHW ? Shape{2, 3, 5, 6} : Shape{2, 5, 6, 3};
        Var x = tensor("x", dt, xs);
        Pool2dOptions o;
        o.layout = layout;
        o.stride = c.stride;
        o.padding = c.pad;
        o.ceil_mode = c.ceil;
        o.count_include_pad = c.include_pad;
        Var mx = max_pool2d(x, c.kernel, o), av = avg_pool2d(x, c.kernel, o);
        Var gx = grad(sum(mx * mx) + sum(av * av), x);
        const double tol = dt == DType::Float32 ? 1e-5 : 1e-12;
        expect_cuda_matches_cpu({x}, {mx, av, gx}, {uniform_signed(xs, dt, 11)}, tol, tol, {{"assert_no_cpu_op", "raise"}});
      }
}

TEST(CudnnPool, AnAverageCountingPaddingPastItRunsOnTgcsOwnKernel) {
  // cuDNN divides by the whole window, PyTorch's rule by its part inside the padding: the cuDNN
  // rule declines such a pooling, and tgc's own pooling kernel (backends/gpu/pool_rules.h) runs
  // it on the device instead, with the reference's divisor.
  TGC_REQUIRE_CUDNN();
  Var x = tensor("x", DType::Float32, {2, 3, 5, 6});
  Pool2dOptions o;
  o.stride = std::array<int64_t, 2>{2, 2};
  o.padding = {1, 1};
  o.ceil_mode = true;  // width 6: four windows, the last from column 5 to 7, past the padding
  Var av = avg_pool2d(x, {3, 3}, o);
  EXPECT_NO_THROW(function({x}, {av}, {}, on("cuda", {{"assert_no_cpu_op", "raise"}})));
  expect_cuda_matches_cpu({x}, {av * 2.0}, {uniform_signed({2, 3, 5, 6}, DType::Float32, 12)}, 1e-6, 1e-6,
                          {{"assert_no_cpu_op", "raise"}});
}

}  // namespace
}  // namespace tgc
