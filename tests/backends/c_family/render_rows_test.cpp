// The row kernels' unit (render_rows.h): its entry list and names, one-entry rendering, the
// dialects' spellings and the float32 arithmetic choices, and the whole unit through the
// compilers: NVRTC for sm_90 (with the CUDA toolkit) and an OpenCL C front end (with an OpenCL
// device, PoCL in CI).
#include "backends/c_family/render_rows.h"

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

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

std::string entry_source(Dialect d, const RowKernel& k, bool float32_in_double = false) {
  return render_rows(d, {float32_in_double}, row_entry(k));
}

TEST(RenderRows, EntryNamesAreDistinctAndFoundByTheirKey) {
  const std::vector<RowKernel>& list = row_kernels();
  std::set<std::string> names;
  for (size_t e = 0; e < list.size(); ++e) {
    EXPECT_TRUE(names.insert(row_entry_name(list[e])).second) << row_entry_name(list[e]);
    EXPECT_EQ(row_entry(list[e]), static_cast<int>(e)) << row_entry_name(list[e]);
  }
  // Every op (the cross-entropy in its two forms), both float dtypes, both offset widths;
  // nothing else.
  EXPECT_EQ(list.size(), 24u);
  EXPECT_EQ(row_entry_name({RowOp::LogSoftmax, DType::Float32, true}), "tgc_row_log_softmax_float32_i32");
  EXPECT_EQ(row_entry_name({RowOp::LogSoftmaxGrad, DType::Float64, false}), "tgc_row_log_softmax_grad_float64_i64");
  EXPECT_EQ(row_entry({RowOp::Softmax, DType::Int32, true}), -1);
}

TEST(RenderRows, TheUnitDefinesEveryEntryOnceAndOneEntryAlone) {
  for (Dialect d : {Dialect::Cuda, Dialect::OpenCL}) {
    const std::string all = render_rows(d, {});
    for (const RowKernel& k : row_kernels()) EXPECT_EQ(count(all, " " + row_entry_name(k) + "("), 1u);
    EXPECT_EQ(all.find('$'), std::string::npos) << "a template token left unfilled";
    const std::string one = entry_source(d, {RowOp::LogSumExp, DType::Float32, true});
    EXPECT_EQ(count(one, "tgc_row_logsumexp_float32_i32("), 1u);
    EXPECT_EQ(count(one, "tgc_row_softmax"), 0u);
    EXPECT_NE(one.find("tgc_row_params"), std::string::npos);  // the preamble comes with it
  }
}

TEST(RenderRows, DialectsDifferOnlyInTheirSpellings) {
  const RowKernel k{RowOp::Softmax, DType::Float32, true};
  const std::string cu = entry_source(Dialect::Cuda, k), cl = entry_source(Dialect::OpenCL, k);
  EXPECT_NE(cu.find("extern \"C\" __global__ void tgc_row_softmax_float32_i32(float* out, const float* x, "
                    "tgc_row_params P)"),
            std::string::npos)
      << cu;
  // OpenCL: __global pointers, then each pointer's element offset after the params.
  EXPECT_NE(cl.find("__kernel void tgc_row_softmax_float32_i32(__global float* out, __global const float* x, "
                    "tgc_row_params P, ulong out_off, ulong x_off)"),
            std::string::npos)
      << cl;
  EXPECT_NE(cl.find("x += x_off;"), std::string::npos);
  // The block's tree lives in shared / local memory, one double per lane.
  EXPECT_NE(cu.find("__shared__ double SA[256];"), std::string::npos);
  EXPECT_NE(cl.find("__local double SA[256];"), std::string::npos);
  EXPECT_NE(cu.find("__syncthreads()"), std::string::npos);
  EXPECT_NE(cl.find("barrier(CLK_LOCAL_MEM_FENCE)"), std::string::npos);
  EXPECT_NE(cl.find("cl_khr_fp64"), std::string::npos);
  // float32's exp in float: CUDA's expf, OpenCL's overloaded exp on a float.
  EXPECT_NE(cu.find("expf((float)x[o1] - m)"), std::string::npos) << cu;
  EXPECT_NE(cl.find("exp((float)x[o1] - m)"), std::string::npos) << cl;
}

TEST(RenderRows, Float32ExpIsFloatAndSumsAreDoubleUnlessFloat32MathIsDouble) {
  const RowKernel k{RowOp::LogSoftmax, DType::Float32, false};
  const std::string fast = entry_source(Dialect::Cuda, k);
  EXPECT_NE(fast.find("acc += (double)expf("), std::string::npos) << fast;  // exp in float, summed in double
  EXPECT_NE(fast.find("const float S = (float)SA[0];"), std::string::npos);  // the sum rounded once per row
  EXPECT_NE(fast.find("const float lse = logf(S);"), std::string::npos);
  EXPECT_NE(fast.find("long long r = t"), std::string::npos);  // 64-bit offsets in the i64 entry
  const std::string exact = entry_source(Dialect::Cuda, k, /*float32_in_double=*/true);
  EXPECT_EQ(exact.find("expf"), std::string::npos) << exact;
  EXPECT_NE(exact.find("acc += (double)exp((double)x[o1] - m);"), std::string::npos) << exact;
  EXPECT_NE(exact.find("out[o0] = (float)(((double)x[o1] - m) - lse);"), std::string::npos) << exact;
  // float64 is double throughout, whatever float32_math says.
  const std::string f64 = entry_source(Dialect::Cuda, {RowOp::Softmax, DType::Float64, true});
  EXPECT_EQ(f64.find("(float)"), std::string::npos) << f64;
  EXPECT_EQ(f64.find("expf"), std::string::npos) << f64;
}

TEST(RenderRows, ShiftsFollowTheReferenceAndTheTreeLetsANaNWin) {
  // softmax shifts by the max itself; log_softmax and logsumexp by the finite max, else 0.
  const std::string sm = entry_source(Dialect::OpenCL, {RowOp::Softmax, DType::Float64, true});
  const std::string lsm = entry_source(Dialect::OpenCL, {RowOp::LogSoftmax, DType::Float64, true});
  const std::string lse = entry_source(Dialect::OpenCL, {RowOp::LogSumExp, DType::Float64, true});
  EXPECT_EQ(sm.find("fabs(m) < "), std::string::npos);
  EXPECT_NE(lsm.find("if (!(fabs(m) < (double)INFINITY)) m = (double)0;"), std::string::npos) << lsm;
  EXPECT_NE(lse.find("if (!(fabs(m) < (double)INFINITY)) m = (double)0;"), std::string::npos);
  for (const std::string* s : {&sm, &lsm, &lse}) {
    EXPECT_NE(s->find("if (v > m || v != v) m = v;"), std::string::npos);
    EXPECT_NE(s->find("SA[t] = (a >= b || a != a) ? a : b;"), std::string::npos);
  }
  // logsumexp writes one value per row, from one thread.
  EXPECT_NE(lse.find("if (t == 0) out[q0] = (double)(log(S) + m);"), std::string::npos) << lse;
  // The gradient: g - exp(y) * sum(g), g and y read at their own strides.
  const std::string g = entry_source(Dialect::Cuda, {RowOp::LogSoftmaxGrad, DType::Float32, true});
  EXPECT_NE(g.find("acc += (double)g[o1];"), std::string::npos) << g;
  EXPECT_NE(g.find("out[o0] = (float)((float)g[o1] - expf((float)y[o2]) * S);"), std::string::npos) << g;
}

#if TGC_HAVE_CUDA
TEST(RenderRows, TheCudaUnitCompilesWithNvrtcForSm90) {
  const cuda::NvrtcOptions options{.arch = 90, .fast_math = false, .extra = {}, .ptx_only = true};
  for (bool in_double : {false, true})
    EXPECT_GT(cuda::nvrtc_compile(render_rows(Dialect::Cuda, {in_double}), "row kernels", options).size(), 0u);
}
#endif

#if TGC_HAVE_OPENCL
// The whole OpenCL unit, in both arithmetic modes, through an OpenCL C front end.
TEST(RenderRows, TheOpenCLUnitCompiles) {
  for (bool in_double : {false, true})
    test::expect_opencl_compiles(render_rows(Dialect::OpenCL, {in_double}), in_double ? "rows in double" : "rows");
}
#endif

}  // namespace
}  // namespace tgc::cfam
