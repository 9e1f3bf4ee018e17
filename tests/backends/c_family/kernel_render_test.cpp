// The C-family renderer as text: the entry ABI in both dialects, the dialect hooks (CUDA
// qualifiers, shuffles; OpenCL address spaces, built-ins, local-memory trees), the scalar
// semantics chosen per dtype, and that every scalar-op row renders.
#include <gtest/gtest.h>

#include "backends/c_family/kernel_render.h"
#include "backends/c_family/kernel_test_util.h"

namespace tgc::cfam {
namespace {

using test::binary_kernel;
using test::reduce_kernel;
using test::unary_kernel;

bool has(const std::string& code, const std::string& what) { return code.find(what) != std::string::npos; }

const RenderOptions kCuda{Dialect::Cuda, false, "tgc_k"};
const RenderOptions kOpenCL{Dialect::OpenCL, false, "tgc_k"};

TEST(KernelRender, CudaElementwiseEntriesFollowTheAbi) {
  const Source s = render(binary_kernel(ScalarOpKind::Add, DType::Float32, 2), kCuda);
  EXPECT_EQ(s.entries, (std::vector<std::string>{"tgc_k_vector_i32", "tgc_k_vector_i64", "tgc_k_dense_i32",
                                                 "tgc_k_dense_i64", "tgc_k_strided_i32", "tgc_k_strided_i64",
                                                 "tgc_k_strided_vector_i32"}));
  EXPECT_EQ(s.params_capacity, 2u + 2 + 3 * 2 + 2);  // n, rank, shape, strides, fast divisors
  EXPECT_FALSE(s.may_fail);
  EXPECT_TRUE(has(s.code, "typedef struct { long long v[12]; } tgc_k_params;"));
  EXPECT_TRUE(has(s.code,
                  "extern \"C\" __global__ void tgc_k_vector_i32(const float* __restrict__ p0, const float* "
                  "__restrict__ p1, float* __restrict__ p2, void* scratch, int* errors, tgc_k_params P)"));
  EXPECT_TRUE(has(s.code, "((const float4*)p0)[i]"));
  EXPECT_TRUE(has(s.code, "blockIdx.x"));
  EXPECT_TRUE(has(s.code, "const float v2 = (v0 + v1);"));  // exact in float: no double round trip
  // int32 strided indices split by multiply-high and shift (fast_divisor.h), int64 ones divide.
  EXPECT_TRUE(has(s.code, "__umulhi((unsigned int)t_, (unsigned int)(P.v[11] >> 8))"));
  EXPECT_TRUE(has(s.code, "const long long q_ = t_ / ((long long)P.v[3]);"));
  // Strided vectors: offsets of a vector's first element, one 16-byte load or store per operand.
  EXPECT_TRUE(has(s.code, "const float4 a1 = ((const float4*)(p1 + q1))[0];"));
  EXPECT_TRUE(has(s.code, "((float4*)(p2 + q2))[0] = b0;"));
  EXPECT_FALSE(has(s.code, "__kernel"));
}

TEST(KernelRender, OpenCLElementwiseUsesAddressSpacesBuiltinsAndVload) {
  const Source s = render(binary_kernel(ScalarOpKind::Add, DType::Float32, 2), kOpenCL);
  EXPECT_TRUE(has(s.code, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable"));
  EXPECT_TRUE(has(s.code, "typedef struct { long v[12]; } tgc_k_params;"));
  EXPECT_TRUE(has(s.code,
                  "__kernel void tgc_k_vector_i32(__global const float* restrict p0, __global const float* restrict "
                  "p1, __global float* restrict p2, __global void* scratch, __global int* errors, tgc_k_params P, "
                  "ulong p0_off, ulong p1_off, ulong p2_off)"));
  EXPECT_TRUE(has(s.code, "vload4(i, p0)"));
  EXPECT_TRUE(has(s.code, "mul_hi((unsigned int)t_, (unsigned int)(P.v[11] >> 8))"));
  EXPECT_TRUE(has(s.code, "vstore4(b0, i, p2);"));
  EXPECT_TRUE(has(s.code, "get_group_id(0)"));
  EXPECT_TRUE(has(s.code, "get_local_size(0)"));
  for (const char* cuda_only : {"__global__", "__device__", "long long", "blockIdx", "__shfl", "__restrict__"})
    EXPECT_FALSE(has(s.code, cuda_only)) << cuda_only;
}

TEST(KernelRender, OpenCLEntriesMoveEachOperandByItsElementOffsetFirst) {
  // cl_mem handles have no host-side pointer arithmetic: views come as (buffer, offset).
  for (const Kernel& k : {binary_kernel(ScalarOpKind::Add, DType::Float32, 2), reduce_kernel(KernelReduceOp::Sum, 1, {0})}) {
    const Source s = render(k, kOpenCL);
    for (const std::string& entry : s.entries) {
      const size_t at = s.code.find("__kernel void " + entry + "(");
      ASSERT_NE(at, std::string::npos) << entry;
      const size_t body = s.code.find("{\n", at);
      EXPECT_EQ(s.code.substr(body, 18), "{\n  p0 += p0_off;\n") << entry << ": the offset is not applied first";
    }
    EXPECT_FALSE(has(render(k, kCuda).code, "_off")) << "the CUDA ABI has no offsets";
  }
}

TEST(KernelRender, Float32TranscendentalsComputeInFloatUnlessAskedForDouble) {
  Kernel k = reduce_kernel(KernelReduceOp::Sum, 1, {0});
  EXPECT_TRUE(has(render(k, kCuda).code, "expf(v0)"));
  EXPECT_TRUE(has(render(k, kOpenCL).code, "exp(v0)"));
  RenderOptions in_double{Dialect::Cuda, false, "tgc_k", true};
  EXPECT_TRUE(has(render(k, in_double).code, "(float)(exp(((double)v0)))"));
  in_double.fast_math = true;  // fast math wins: float functions
  EXPECT_TRUE(has(render(k, in_double).code, "expf(v0)"));
  // Rows that are neither exact in float nor transcendental keep the reference's bits.
  const Kernel r = unary_kernel(ScalarOpKind::Rsqrt, DType::Float32);
  EXPECT_TRUE(has(render(r, kCuda).code, "((double)1 / sqrt(((double)v0)))"));
}

TEST(KernelRender, IntegerDivisionSetsErrorBitsInBothDialects) {
  const Kernel k = binary_kernel(ScalarOpKind::FloorDiv, DType::Int32, 1, DType::Int32);
  const Source cu = render(k, kCuda), cl = render(k, kOpenCL);
  EXPECT_TRUE(cu.may_fail);
  EXPECT_TRUE(has(cu.code, "(int)(tgc_floordiv_i(((tgc_i64)v0), ((tgc_i64)v1), &tgc_err))"));
  // The element function returns its results and error bits by value (nothing the caller
  // holds is addressable, so an out-of-line call keeps them in registers).
  EXPECT_TRUE(has(cu.code, "typedef struct { int r0; int err; } tgc_k_elem_out;"));
  EXPECT_TRUE(has(cu.code, "tgc_errors |= tgc_out.err; }"));
  EXPECT_FALSE(has(cu.code, "&tgc_errors"));
  EXPECT_TRUE(has(cu.code, "if (tgc_errors) atomicOr(errors, tgc_errors);"));
  EXPECT_TRUE(has(cl.code, "if (tgc_errors) atomic_or(errors, tgc_errors);"));
  // Float floor division cannot fail.
  EXPECT_FALSE(render(binary_kernel(ScalarOpKind::FloorDiv, DType::Float32, 1), kCuda).may_fail);
}

// CUDA's pass-1 entries carry the launch bounds the planner sizes the grid for, and the
// combining tail; OpenCL's have neither.
TEST(KernelRender, CudaPassOneEntriesKeepTwoBlocksResidentAndCombine) {
  const Kernel k = reduce_kernel(KernelReduceOp::Sum, 1, {0});
  const std::string cu = render(k, kCuda).code, cl = render(k, kOpenCL).code;
  EXPECT_TRUE(has(cu, "__launch_bounds__(512, 2) tgc_k_reduce_pass1_vector_i32("));
  EXPECT_TRUE(has(cu, "atomicAdd(&tgc_tickets[o], 1u)"));
  EXPECT_TRUE(has(cu, "tgc_tickets[o] = 0u"));
  EXPECT_FALSE(has(cu, "__launch_bounds__(512, 2) tgc_k_reduce_block"));  // pass 1 only
  EXPECT_FALSE(has(cl, "__launch_bounds__"));
  EXPECT_FALSE(has(cl, "tgc_tickets"));
}

TEST(KernelRender, ReductionsCombineWithShufflesInCudaAndLocalTreesInOpenCL) {
  const Kernel k = reduce_kernel(KernelReduceOp::Max, 2, {1});
  const Source cu = render(k, kCuda), cl = render(k, kOpenCL);
  EXPECT_EQ(cu.entries.size(), 13u);
  EXPECT_EQ(cu.entries[4], "tgc_k_reduce_pass1_i32");
  EXPECT_EQ(cu.entries[8], "tgc_k_reduce_column_i32");
  EXPECT_EQ(cu.entries[10], "tgc_k_reduce_block_vector_i32");  // vector entries: int32 only
  EXPECT_EQ(cu.entries[11], "tgc_k_reduce_pass1_vector_i32");
  EXPECT_EQ(cu.entries[12], "tgc_k_reduce_column_vector_i32");
  // The vector column schedule: a row's four outputs in one load, row lanes combined in order.
  EXPECT_TRUE(has(cu.code, "__launch_bounds__(256, 4) tgc_k_reduce_column_vector_i32("));
  EXPECT_TRUE(has(cu.code, "const float4 a0 = ((const float4*)(p0 + rq0))[0];"));
  EXPECT_TRUE(has(cl.code, "const float4 a0 = vload4(0, (p0 + rq0));"));
  EXPECT_TRUE(has(cu.code, "__shared__ float tgc_col0[1024];"));
  EXPECT_TRUE(has(cu.code, "acc0_3 = tgc_k_comb0(acc0_3, tgc_col0[(j * G + gl) * 4 + 3]);"));
  EXPECT_TRUE(has(cu.code, "const int o = t - ch * n_out;"));  // the column schedule: outputs fastest
  EXPECT_TRUE(has(cu.code, "const float4 a0 = ((const float4*)(p0 + q0))[v];"));
  EXPECT_TRUE(has(cl.code, "const float4 a0 = vload4(v, (p0 + q0));"));
  EXPECT_TRUE(has(cu.code, "__shfl_down_sync(0xffffffffu, acc0, off)"));
  EXPECT_TRUE(has(cu.code, "__shared__ float tgc_sh0[32];"));
  EXPECT_TRUE(has(cu.code, "return (b > a || isnan(b)) ? b : a;"));  // NaN wins, as CAReduce
  EXPECT_TRUE(has(cl.code, "__local float tgc_sh0[256];"));
  EXPECT_TRUE(has(cl.code, "barrier(CLK_LOCAL_MEM_FENCE)"));
  EXPECT_FALSE(has(cl.code, "__shfl"));
  EXPECT_FALSE(has(cl.code, "atomic"));  // no atomics on values (and max cannot fail)
}

TEST(KernelRender, OnlyEntryDefinesOneEntryAndKeepsEveryIndex) {
  const Kernel k = reduce_kernel(KernelReduceOp::Sum, 2, {1});
  const Source all = render(k, kOpenCL);
  for (size_t e = 0; e < all.entries.size(); ++e) {
    RenderOptions options = kOpenCL;
    options.only_entry = static_cast<int>(e);
    const Source one = render(k, options);
    EXPECT_EQ(one.entries, all.entries);  // Launch::entry indexes the same list
    EXPECT_EQ(one.params_capacity, all.params_capacity);
    for (size_t other = 0; other < all.entries.size(); ++other)
      EXPECT_EQ(has(one.code, "__kernel void " + all.entries[other] + "("), other == e) << all.entries[other];
  }
}

// CUDA builds a composite's module in two parts (the entries a call is expected to launch,
// or the 32-bit-index ones; the others on the first launch that needs one): each part defines
// exactly the entries flagged, and every entry is in one part; names, indices and the params
// blob stay those of the whole.
TEST(KernelRender, EachPartDefinesExactlyTheEntriesFlagged) {
  for (const Kernel& k : {reduce_kernel(KernelReduceOp::Sum, 2, {1}), binary_kernel(ScalarOpKind::Add, DType::Float32, 2)}) {
    const Source all = render(k, kCuda);
    ASSERT_EQ(all.wide_index.size(), all.entries.size());
    size_t wide = 0;
    for (size_t e = 0; e < all.entries.size(); ++e) {
      EXPECT_EQ(all.wide_index[e], all.entries[e].ends_with("_i64")) << all.entries[e];
      wide += all.wide_index[e];
    }
    EXPECT_GT(wide, 0u);
    EXPECT_LT(wide, all.entries.size());
    std::vector<bool> first_only(all.entries.size(), false);
    first_only[0] = true;
    for (const std::vector<bool>& flags : {all.wide_index, first_only}) {
      for (bool part : {false, true}) {
        RenderOptions options = kCuda;
        for (size_t e = 0; e < flags.size(); ++e) options.only_entries.push_back(flags[e] == part);
        const Source one = render(k, options);
        EXPECT_EQ(one.entries, all.entries);
        EXPECT_EQ(one.wide_index, all.wide_index);
        EXPECT_EQ(one.params_capacity, all.params_capacity);
        for (size_t e = 0; e < all.entries.size(); ++e)
          EXPECT_EQ(has(one.code, " " + all.entries[e] + "("), flags[e] == part) << part << " " << all.entries[e];
        EXPECT_LT(one.code.size(), all.code.size());
      }
    }
  }
}

TEST(KernelRender, SumsAccumulateInDoubleAndMeanDividesBeforeRounding) {
  const Source sum = render(reduce_kernel(KernelReduceOp::Sum, 1, {0}), kCuda);
  EXPECT_TRUE(has(sum.code, "double acc0 = (double)0;"));
  EXPECT_TRUE(has(sum.code, "acc0 = tgc_k_comb0(acc0, (double)x0);"));
  const Source mean = render(reduce_kernel(KernelReduceOp::Mean, 1, {0}), kCuda);
  EXPECT_TRUE(has(mean.code, "(float)(acc0 / (double)n_red)"));
  const Source isum = render(reduce_kernel(KernelReduceOp::Sum, 1, {0}, DType::Int64), kCuda);
  EXPECT_TRUE(has(isum.code, "return tgc_wrap_add(a, b);"));
}

TEST(KernelRender, BodiesShareOneTranslationUnitByPrefix) {
  const Kernel k = binary_kernel(ScalarOpKind::Add, DType::Float32, 1);
  const Source a = render_body(k, {Dialect::Cuda, false, "ka"}), b = render_body(k, {Dialect::Cuda, false, "kb"});
  EXPECT_FALSE(has(a.code, "tgc_max_d("));  // the preamble's helpers are not repeated
  EXPECT_EQ(a.entries[0], "ka_vector_i32");
  EXPECT_EQ(b.entries[0], "kb_vector_i32");
  EXPECT_TRUE(has(render_preamble(Dialect::Cuda), "tgc_max_d("));
}

// Every row of the scalar-op table, over the dtypes its type rule accepts, renders in both
// dialects (the NVRTC test compiles what the conformance suite makes).
TEST(KernelRender, EveryScalarOpRowRenders) {
  for (const ScalarOpInfo& row : scalar_op_table()) {
    for (DType t : {DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::UInt8, DType::Bool}) {
      std::vector<DType> in(static_cast<size_t>(row.arity), t);
      if (row.kind == ScalarOpKind::Where) in[0] = DType::Bool;
      ScalarSignature sig;
      try {
        sig = scalar_signature(row.kind, in, DType::Float32, row.kind == ScalarOpKind::Cast ? std::optional(DType::Int8)
                                                                                            : std::nullopt);
      } catch (const TypeError&) {
        continue;  // bool '-' and the like
      }
      Kernel k;
      k.ndim = 1;
      std::vector<int> args;
      for (int j = 0; j < row.arity; ++j) {
        k.inputs.push_back({sig.operands[j], 1, {-1}, false});
        k.values.push_back(test::load_value(j, sig.operands[j]));
        args.push_back(j);
      }
      k.values.push_back(test::op_value(row.kind, sig.out, args));
      k.outputs = {{row.arity, sig.out}};
      for (const RenderOptions& o : {kCuda, kOpenCL}) {
        const Source s = render(k, o);
        EXPECT_EQ(s.entries.size(), 7u) << row.name << " " << dtype_name(t);
      }
    }
  }
}

TEST(KernelRender, ConstantsAreExact) {
  Kernel k;
  k.ndim = 1;
  k.inputs = {{DType::Float64, 1, {-1}, false}};
  KernelValue c;
  c.kind = KernelValue::Kind::Constant;
  c.dtype = DType::Float64;
  c.constant = 0.1;
  KernelValue inf = c;
  inf.constant = -std::numeric_limits<double>::infinity();
  k.values = {test::load_value(0, DType::Float64), c, inf, test::op_value(ScalarOpKind::Add, DType::Float64, {0, 1}),
              test::op_value(ScalarOpKind::Maximum, DType::Float64, {3, 2})};
  k.outputs = {{4, DType::Float64}};
  const std::string cu = render(k, kCuda).code, cl = render(k, kOpenCL).code;
  EXPECT_TRUE(has(cu, "(0x1.999999999999ap-4)"));
  EXPECT_TRUE(has(cu, "-__longlong_as_double(0x7ff0000000000000LL)"));
  EXPECT_TRUE(has(cl, "-as_double((long)0x7ff0000000000000L)"));
}

TEST(KernelRender, VariantKeysAreReadable) {
  EXPECT_EQ((Variant{2, 1, false, 1, false}).key(), "o2r1c0v1i64");
}

}  // namespace
}  // namespace tgc::cfam
