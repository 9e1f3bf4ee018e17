// The pool kernels' unit (render_pool.h): its entry list and names, one-entry rendering, the
// reference's rules in the rendered source (the first maximum with a NaN winning, the sums in
// double, the gathering gradient), and the whole unit through the compilers: NVRTC for sm_90
// (with the CUDA toolkit) and an OpenCL C front end (with an OpenCL device, PoCL in CI).
#include "backends/c_family/render_pool.h"

#include <gtest/gtest.h>

#include <set>

#if TGC_HAVE_CUDA
#include "backends/cuda/nvrtc_compiler.h"
#endif
#if TGC_HAVE_OPENCL
#include "opencl_front_end.h"
#endif

namespace tgc::cfam {
namespace {

TEST(RenderPool, EveryEntryOnceByNameAndAlone) {
  const std::vector<PoolKernel>& list = pool_kernels();
  EXPECT_EQ(list.size(), 16u);  // 4 ops x float32/float64 x int32/int64 offsets
  std::set<std::string> names;
  for (size_t e = 0; e < list.size(); ++e) {
    EXPECT_EQ(pool_entry(list[e]), static_cast<int>(e));
    names.insert(pool_entry_name(list[e]));
  }
  EXPECT_EQ(names.size(), list.size());
  EXPECT_EQ(pool_entry_name({PoolOp::MaxGrad, DType::Float32, true}), "tgc_pool_max_grad_float32_i32");
  EXPECT_EQ(pool_entry({PoolOp::MaxGrad, DType::Float16, true}), -1);
  const std::string one = render_pool(Dialect::Cuda, pool_entry({PoolOp::AvgForward, DType::Float64, false}));
  EXPECT_NE(one.find("tgc_pool_avg_float64_i64("), std::string::npos);
  EXPECT_EQ(one.find("tgc_pool_max_float64_i64("), std::string::npos);
}

TEST(RenderPool, TheReferencesRulesAreInTheSource) {
  const std::string max = render_pool(Dialect::OpenCL, pool_entry({PoolOp::MaxForward, DType::Float32, true}));
  // The first maximum in row order; a NaN wins over a number, a later NaN does not.
  EXPECT_NE(max.find("if (ba < 0 || v > best || (v != v && best == best))"), std::string::npos) << max;
  const std::string avg = render_pool(Dialect::OpenCL, pool_entry({PoolOp::AvgForward, DType::Float32, true}));
  EXPECT_NE(avg.find("acc += (double)x[bx + a * s1h + b * s1w];"), std::string::npos) << avg;
  EXPECT_NE(avg.find("out[n * s0n + c * s0c + oh * s0h + ow * s0w] = (float)(acc / divisor);"), std::string::npos);
  // The gradient gathers over the covering windows and stores once, rounded from double.
  const std::string grad = render_pool(Dialect::Cuda, pool_entry({PoolOp::MaxGrad, DType::Float64, false}));
  EXPECT_NE(grad.find("if (ba == ih && bb == iw) acc += g;"), std::string::npos) << grad;
  EXPECT_NE(grad.find("out[n * s0n + c * s0c + ih * s0h + iw * s0w] = (double)acc;"), std::string::npos);
}

#if TGC_HAVE_CUDA
TEST(RenderPool, TheCudaUnitCompilesWithNvrtcForSm90) {
  const cuda::NvrtcOptions options{.arch = 90, .fast_math = false, .extra = {}, .ptx_only = true};
  EXPECT_GT(cuda::nvrtc_compile(render_pool(Dialect::Cuda), "pool kernels", options).size(), 0u);
}
#endif

#if TGC_HAVE_OPENCL
TEST(RenderPool, TheOpenCLUnitCompiles) { test::expect_opencl_compiles(render_pool(Dialect::OpenCL), "pool"); }
#endif

}  // namespace
}  // namespace tgc::cfam
