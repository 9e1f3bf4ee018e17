// The direct conv kernels' unit (render_conv.h): its entry list and names, one-entry
// rendering, the reference's loops in the rendered source (sums in double, bias and relu in
// double, the input gradient gathering over whole taps), and the whole unit through the
// compilers: NVRTC for sm_90 (with the CUDA toolkit) and an OpenCL C front end (with an OpenCL
// device, PoCL in CI).
#include "backends/c_family/render_conv.h"

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

TEST(RenderConv, EveryEntryOnceByNameAndAlone) {
  const std::vector<ConvKernel>& list = conv_kernels();
  EXPECT_EQ(list.size(), 20u);  // 5 ops x float32/float64 x int32/int64 offsets
  std::set<std::string> names;
  for (size_t e = 0; e < list.size(); ++e) {
    EXPECT_EQ(conv_entry(list[e]), static_cast<int>(e));
    names.insert(conv_entry_name(list[e]));
  }
  EXPECT_EQ(names.size(), list.size());
  EXPECT_EQ(conv_entry_name({ConvOp::GradInput, DType::Float32, true}), "tgc_conv_grad_input_float32_i32");
  EXPECT_EQ(conv_entry({ConvOp::Forward, DType::BFloat16, true}), -1);
  const std::string one = render_conv(Dialect::Cuda, conv_entry({ConvOp::GradWeights, DType::Float64, false}));
  EXPECT_NE(one.find("tgc_conv_grad_weights_float64_i64("), std::string::npos);
  EXPECT_EQ(one.find("tgc_conv_forward_float64_i64("), std::string::npos);
}

TEST(RenderConv, TheReferencesLoopsAreInTheSource) {
  const std::string relu = render_conv(Dialect::OpenCL, conv_entry({ConvOp::ForwardBiasRelu, DType::Float32, true}));
  EXPECT_NE(relu.find("acc += (double)a[n * s1n + (c0 + c) * s1c + ih * s1h + iw * s1w] *"), std::string::npos) << relu;
  EXPECT_NE(relu.find("acc += (double)bias[o * (int)P.v["), std::string::npos) << relu;
  EXPECT_NE(relu.find("if (acc < 0.0) acc = 0.0;"), std::string::npos);
  EXPECT_NE(relu.find("out[n * s0n + o * s0c + oh * s0h + ow * s0w] = (float)acc;"), std::string::npos);
  const std::string gi = render_conv(Dialect::Cuda, conv_entry({ConvOp::GradInput, DType::Float64, true}));
  EXPECT_NE(gi.find("if (dh % DH != 0) continue;"), std::string::npos) << gi;
  EXPECT_NE(gi.find("for (int o = grp * og; o < (grp + 1) * og; ++o)"), std::string::npos) << gi;
}

#if TGC_HAVE_CUDA
TEST(RenderConv, TheCudaUnitCompilesWithNvrtcForSm90) {
  const cuda::NvrtcOptions options{.arch = 90, .fast_math = false, .extra = {}, .ptx_only = true};
  EXPECT_GT(cuda::nvrtc_compile(render_conv(Dialect::Cuda), "conv kernels", options).size(), 0u);
}
#endif

#if TGC_HAVE_OPENCL
TEST(RenderConv, TheOpenCLUnitCompiles) { test::expect_opencl_compiles(render_conv(Dialect::OpenCL), "conv"); }
#endif

}  // namespace
}  // namespace tgc::cfam
