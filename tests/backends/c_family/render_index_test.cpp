// The index kernels' unit (render_index.h): its entry list and names, one-entry rendering, the
// dialects' spellings, and the whole unit through the compilers: NVRTC for sm_90 (with the CUDA
// toolkit) and an OpenCL C front end (with an OpenCL device, PoCL in CI).
#include "backends/c_family/render_index.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#if TGC_HAVE_CUDA
#include "backends/cuda/nvrtc_compiler.h"
#endif
#if TGC_HAVE_OPENCL
#include "opencl_front_end.h"
#endif

namespace tgc::cfam {
namespace {

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(RenderIndex, EntryNamesAreDistinctAndFoundByTheirKey) {
  for (Dialect d : {Dialect::Cuda, Dialect::OpenCL}) {
    const std::vector<IndexKernel>& list = index_kernels(d);
    std::set<std::string> names;
    for (size_t e = 0; e < list.size(); ++e) {
      EXPECT_TRUE(names.insert(index_entry_name(list[e])).second) << index_entry_name(list[e]);
      EXPECT_EQ(index_entry(d, list[e]), static_cast<int>(e)) << index_entry_name(list[e]);
    }
  }
  EXPECT_EQ(index_entry_name({IndexOp::Gather, DType::Int32, DType::Int64, true}), "tgc_ix_gather_b4_int64_i32");
  EXPECT_EQ(index_entry_name({IndexOp::Add, DType::Float32, DType::Int64, false}), "tgc_ix_add_float32_i64");
  EXPECT_EQ(index_entry_name({IndexOp::SortStep}), "tgc_ix_sort_step");
  // Fields an entry does not vary by are ignored when looking it up.
  EXPECT_EQ(index_entry(Dialect::Cuda, {IndexOp::SortTile, DType::Float32, DType::Int8, true}),
            index_entry(Dialect::Cuda, {IndexOp::SortTile}));
  // Every index dtype tgc has, both offset widths, every element size.
  for (DType ix : {DType::Int8, DType::UInt8, DType::Int16, DType::Int32, DType::Int64})
    for (size_t size : {1, 2, 4, 8})
      for (bool i32 : {true, false})
        EXPECT_GE(index_entry(Dialect::OpenCL, {IndexOp::Gather, bits_dtype(size), ix, i32}), 0);
  // OpenCL 1.2 has no 64-bit atomics: float64 scatters stay sorted there.
  EXPECT_GE(index_entry(Dialect::Cuda, {IndexOp::ScatterAtomicInc, DType::Float64}), 0);
  EXPECT_EQ(index_entry(Dialect::OpenCL, {IndexOp::ScatterAtomicInc, DType::Float64}), -1);
  EXPECT_GE(index_entry(Dialect::OpenCL, {IndexOp::ScatterAtomicInc, DType::Float32}), 0);
}

TEST(RenderIndex, TheUnitDefinesEveryEntryOnceAndOneEntryAlone) {
  for (Dialect d : {Dialect::Cuda, Dialect::OpenCL}) {
    const std::string all = render_index(d);
    for (const IndexKernel& k : index_kernels(d)) EXPECT_EQ(count(all, " " + index_entry_name(k) + "("), 1u);
    const int e = index_entry(d, {IndexOp::ScatterInc, DType::Float32});
    const std::string one = render_index(d, e);
    EXPECT_EQ(count(one, "tgc_ix_scatter_inc_float32("), 1u);
    EXPECT_EQ(count(one, "tgc_ix_gather_"), 0u);
    EXPECT_NE(one.find("tgc_ix_params"), std::string::npos);  // the preamble comes with it
    EXPECT_EQ(all.find('$'), std::string::npos) << "a template token left unfilled";
  }
}

TEST(RenderIndex, DialectsDifferOnlyInTheirSpellings) {
  const std::string cu = render_index(Dialect::Cuda), cl = render_index(Dialect::OpenCL);
  EXPECT_NE(cu.find("extern \"C\" __global__ void tgc_ix_copy_b4_i32(int* dst, const int* src, tgc_ix_params P)"),
            std::string::npos);
  // OpenCL: __global pointers, then each pointer's element offset after the params.
  EXPECT_NE(cl.find("__kernel void tgc_ix_copy_b4_i32(__global int* dst, __global const int* src, tgc_ix_params P, "
                    "ulong dst_off, ulong src_off)"),
            std::string::npos);
  EXPECT_NE(cl.find("dst += dst_off;"), std::string::npos);
  EXPECT_NE(cu.find("__shared__ long long K[512]"), std::string::npos);
  EXPECT_NE(cl.find("__local long K[512]"), std::string::npos);
  EXPECT_NE(cu.find("atomicAdd(&out[at_[u]], v[bv_[u] + lo])"), std::string::npos);
  EXPECT_NE(cl.find("atomic_cmpxchg"), std::string::npos);  // OpenCL 1.2's float add
  EXPECT_NE(cu.find("atomicOr(flag, 1)"), std::string::npos);
  EXPECT_NE(cl.find("atomic_or(flag, 1)"), std::string::npos);
  EXPECT_NE(cl.find("cl_khr_fp64"), std::string::npos);
}

TEST(RenderIndex, ScattersSumEachDestinationInIndexOrder) {
  // The deterministic inc walks its run of equal keys in position order (the sorted pairs),
  // adding in the value's dtype: the reference's arithmetic, so its bits.
  const std::string s = render_index(Dialect::Cuda, index_entry(Dialect::Cuda, {IndexOp::ScatterInc, DType::Float32}));
  EXPECT_NE(s.find("if (i > 0 && keys[i - 1] == key) continue;"), std::string::npos);
  EXPECT_NE(s.find("for (long long m = i; m < j; ++m)"), std::string::npos);
  EXPECT_NE(s.find("acc_[u] = (float)(acc_[u] + v[bv_[u] + lo]);"), std::string::npos);
  EXPECT_EQ(s.find("atomic"), std::string::npos);
  // Once the device's error word is set the scatter writes nothing (the call raises, and a
  // shared variable scattered into in place keeps its value): the check precedes every store.
  const size_t guard = s.find("if (*flag) return;");
  ASSERT_NE(guard, std::string::npos) << s;
  EXPECT_LT(guard, s.find("out[at_[u]] = acc_[u];"));
}

#if TGC_HAVE_CUDA
TEST(RenderIndex, TheCudaUnitCompilesWithNvrtcForSm90) {
  const std::string source = render_index(Dialect::Cuda);
  // PTX: NVRTC's front end and code generator, where every renderer bug shows (the CI gate's
  // choice, nvrtc_kernels_test); TGC_NVRTC_CUBIN=1 assembles a cubin.
  const char* cubin = std::getenv("TGC_NVRTC_CUBIN");
  const cuda::NvrtcOptions options{.arch = 90, .fast_math = false, .extra = {},
                                   .ptx_only = !(cubin && std::string(cubin) == "1")};
  EXPECT_GT(cuda::nvrtc_compile(source, "index kernels", options).size(), 0u);
}
#endif

#if TGC_HAVE_OPENCL
// The whole OpenCL unit (all 128 entries) through an OpenCL C front end.
TEST(RenderIndex, TheOpenCLUnitCompiles) { test::expect_opencl_compiles(render_index(Dialect::OpenCL), "index kernels"); }
#endif

}  // namespace
}  // namespace tgc::cfam
