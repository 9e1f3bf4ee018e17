// The oneDNN path of the pooling ops (float32) against the reference loops (float64): max and
// average (counting padding or not), padding, ceil_mode, both layouts, forward and gradient;
// skipped in a build without oneDNN.
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "ops/blas/dnnl_gemm.h"
#include "ops/pool/dnnl_pool.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

TEST(DnnlPool, MatchesTheReference) {
  if (!dnnl_available()) GTEST_SKIP() << "built without oneDNN";
  int seed = 0, via_dnnl = 0;
  for (ConvLayout layout : {ConvLayout::NCHW, ConvLayout::NHWC})
    for (PoolMode mode : {PoolMode::Max, PoolMode::Avg})
      for (bool ceil : {false, true})
        for (bool include : {false, true}) {
          Pool2dParams p;
          p.mode = mode;
          p.layout = layout;
          p.kernel = {3, 2};
          p.stride = {2, 2};
          p.pad = {1, 1};
          p.ceil_mode = ceil;
          p.count_include_pad = include;
          SCOPED_TRACE(p.describe());
          Tensor x = RandomState(++seed).randn(conv_act_shape(layout, 2, 3, 6, 7));
          Tensor y = test::run_op(Pool2d(p), {x});
          Tensor gy = RandomState(++seed).randn(y.shape());
          Tensor x32 = x.astype(DType::Float32);
          via_dnnl += dnnl_pool_applies(p, x32);
          test::expect_close(test::run_op(Pool2d(p), {x32}).astype(DType::Float64), y, 1e-6, 1e-6);
          test::expect_close(test::run_op(Pool2dGrad(p), {x32, gy.astype(DType::Float32)}).astype(DType::Float64),
                             test::run_op(Pool2dGrad(p), {x, gy}), 1e-5, 1e-5);
        }
  // Only the average that counts padding in ceil_mode stays on the reference loops.
  EXPECT_EQ(via_dnnl, 14);
}

}  // namespace
}  // namespace tgc
