// The random-draw kernels' unit (render_random.h): its entry list, one-entry rendering, the
// dialects' spellings of the 64-bit high product and the vector store, and the whole unit
// through the compilers: NVRTC for sm_90 (with the CUDA toolkit) and an OpenCL C front end
// (with an OpenCL device). The numbers themselves are checked by the conformance suite.
#include "backends/c_family/render_random.h"

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

TEST(RenderRandom, EntryNamesAreDistinctAndFoundByTheirKey) {
  std::set<std::string> names;
  const auto& list = random_kernels();
  for (size_t e = 0; e < list.size(); ++e) {
    EXPECT_TRUE(names.insert(random_entry_name(list[e])).second);
    EXPECT_EQ(random_entry(list[e]), static_cast<int>(e));
  }
  EXPECT_EQ(random_entry_name({RandomDist::Normal, DType::Float64}), "tgc_random_normal_float64");
  EXPECT_EQ(random_entry({RandomDist::Uniform, DType::Int32}), -1);
  EXPECT_EQ(random_per_block({RandomDist::Uniform, DType::Float32}), 4);
  EXPECT_EQ(random_per_block({RandomDist::Uniform, DType::Float64}), 2);
}

TEST(RenderRandom, OneEntryAloneAndNoTokenLeft) {
  for (Dialect d : {Dialect::Cuda, Dialect::OpenCL}) {
    const std::string all = render_random(d);
    EXPECT_EQ(all.find('$'), std::string::npos) << "a template token left unfilled";
    const std::string one = render_random(d, random_entry({RandomDist::Integers, DType::UInt8}));
    EXPECT_NE(one.find("tgc_random_randint_uint8("), std::string::npos);
    EXPECT_EQ(one.find("tgc_random_uniform"), std::string::npos);
    EXPECT_NE(one.find("tgc_philox"), std::string::npos);  // the helper comes with it
  }
}

TEST(RenderRandom, DialectsDifferOnlyInTheirSpellings) {
  const std::string cu = render_random(Dialect::Cuda), cl = render_random(Dialect::OpenCL);
  EXPECT_NE(cu.find("__umul64hi("), std::string::npos);
  EXPECT_NE(cl.find("mul_hi("), std::string::npos);
  // Philox's rounds take each product's high word in 32 bits (docs/performance.md, random numbers).
  EXPECT_NE(cu.find("__umulhi(m0, c0)"), std::string::npos) << cu;
  EXPECT_NE(cl.find("mul_hi(m0, c0)"), std::string::npos) << cl;
  EXPECT_NE(cu.find("((float4*)out)[b] = make_float4(f0, f1, f2, f3);"), std::string::npos) << cu;
  EXPECT_NE(cl.find("vstore4((float4)(f0, f1, f2, f3), b, out);"), std::string::npos) << cl;
  EXPECT_NE(cl.find("__global const long* state"), std::string::npos) << cl;
  // The paper's constants, once each, in the one helper.
  for (const char* c : {"0xD2511F53u", "0xCD9E8D57u", "0x9E3779B9u", "0xBB67AE85u"}) {
    EXPECT_NE(cu.find(c), std::string::npos) << c;
    EXPECT_EQ(cu.find(c), cu.rfind(c)) << c;
  }
}

#if TGC_HAVE_CUDA
TEST(RenderRandom, TheCudaUnitCompilesWithNvrtcForSm90) {
  const cuda::NvrtcOptions options{.arch = 90, .fast_math = false, .extra = {}, .ptx_only = true};
  EXPECT_GT(cuda::nvrtc_compile(render_random(Dialect::Cuda), "random kernels", options).size(), 0u);
}
#endif

#if TGC_HAVE_OPENCL
TEST(RenderRandom, TheOpenCLUnitCompiles) { test::expect_opencl_compiles(render_random(Dialect::OpenCL), "random"); }
#endif

}  // namespace
}  // namespace tgc::cfam
