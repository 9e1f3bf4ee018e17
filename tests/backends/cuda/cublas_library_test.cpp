// cuBLAS through the GPU layer's BLAS thunk on a real GPU (label gpu) against the host's OpenBLAS:
// every dot form, transposed operands passed as flags, half matrix-vector products, gemm with a
// broadcast bias, batched products with broadcast and 1-d operands, outer products, empty inner
// dims, float32 accuracy with TF32 off (the default), the bias row added in cuBLASLt's epilogue
// (aligned or not), and the per-problem algorithm choice kept in the kernel cache.
#include "backends/cuda/cublas_library.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "runtime/kernel_cache.h"

#include "cuda_test_util.h"

namespace tgc {
namespace {

using cuda_test::expect_cuda_matches_cpu;

Tensor uniform(const Shape& shape, DType dtype, uint64_t seed) {
  RandomState rng(seed);
  return rng.rand(shape).astype(dtype);
}

double tol(DType dt) { return dt == DType::Float32 ? 1e-5 : 1e-12; }

TEST(CudaBlas, DotOfEveryFormAndTransposes) {
  TGC_REQUIRE_CUDA();
  for (DType dt : {DType::Float32, DType::Float64}) {
    SCOPED_TRACE(dtype_name(dt));
    Var a = matrix("a", dt), b = matrix("b", dt), v = vector("v", dt), w = vector("w", dt);
    Tensor A = uniform({37, 53}, dt, 1), B = uniform({53, 29}, dt, 2), At = uniform({53, 37}, dt, 3),
           Bt = uniform({29, 53}, dt, 4), V = uniform({53}, dt, 5), W = uniform({53}, dt, 6);
    expect_cuda_matches_cpu({a, b}, {dot(a, b)}, {A, B}, tol(dt), tol(dt));
    expect_cuda_matches_cpu({a, b}, {dot(a.T(), b)}, {At, B}, tol(dt), tol(dt));
    expect_cuda_matches_cpu({a, b}, {dot(a, b.T())}, {A, Bt}, tol(dt), tol(dt));
    expect_cuda_matches_cpu({a, b}, {dot(a.T(), b.T())}, {At, Bt}, tol(dt), tol(dt));
    expect_cuda_matches_cpu({a, v}, {dot(a, v)}, {A, V}, tol(dt), tol(dt));
    expect_cuda_matches_cpu({a, v}, {dot(a.T(), v)}, {At, V}, tol(dt), tol(dt));
    expect_cuda_matches_cpu({v, b}, {dot(v, b)}, {V, B}, tol(dt), tol(dt));
    expect_cuda_matches_cpu({v, w}, {dot(v, w)}, {V, W}, tol(dt), tol(dt));
  }
}

// Half matrix-vector products, which cuBLAS runs as a GemmEx with one column: every form,
// a row-major matrix on the right included (dot(v, M), M's transpose passed as a flag), whose
// product once had only its first `rows` outputs written.
TEST(CudaBlas, HalfMatrixVectorProductsInEveryForm) {
  TGC_REQUIRE_CUDA();
  for (DType dt : {DType::Float16, DType::BFloat16}) {
    SCOPED_TRACE(dtype_name(dt));
    Var a = matrix("a", dt), v = vector("v", dt), u = vector("u", dt);
    Tensor A = uniform({9, 13}, dt, 7), V = uniform({13}, dt, 8), U = uniform({9}, dt, 9);
    const double t = dt == DType::Float16 ? 1e-2 : 6e-2;
    expect_cuda_matches_cpu({a, v}, {dot(a, v)}, {A, V}, t, t);
    expect_cuda_matches_cpu({u, a}, {dot(u, a)}, {U, A}, t, t);
    expect_cuda_matches_cpu({a, u}, {dot(a.T(), u)}, {A, U}, t, t);
    expect_cuda_matches_cpu({v, a}, {dot(v, a.T())}, {V, A}, t, t);
  }
}

TEST(CudaBlas, GemmWithScalesAndABroadcastBias) {
  TGC_REQUIRE_CUDA();
  Var a = matrix("a", DType::Float32), b = matrix("b", DType::Float32), c = matrix("c", DType::Float32),
      bias = vector("bias", DType::Float32);
  Tensor A = uniform({64, 48}, DType::Float32, 8), B = uniform({48, 80}, DType::Float32, 9),
         C = uniform({64, 80}, DType::Float32, 10), Bias = uniform({80}, DType::Float32, 11);
  expect_cuda_matches_cpu({a, b, c}, {dot(a, b) * 2.0 + c * 0.5}, {A, B, C}, 1e-5, 1e-5);
  expect_cuda_matches_cpu({a, b, bias}, {dot(a, b) + bias}, {A, B, Bias}, 1e-5, 1e-5);
  expect_cuda_matches_cpu({a, b, c}, {dot(a.T(), b) - c}, {uniform({48, 64}, DType::Float32, 12), B, C}, 1e-5, 1e-5);
  Var x = vector("x", DType::Float32), y = vector("y", DType::Float32);
  expect_cuda_matches_cpu({a, x, y}, {dot(a, x) * 3.0 + y},
                          {A, uniform({48}, DType::Float32, 13), uniform({64}, DType::Float32, 14)}, 1e-5, 1e-5);
}

TEST(CudaBlas, BiasRowsInTheEpilogueAlignedOrNot) {
  TGC_REQUIRE_CUDA();
  for (DType dt : {DType::Float32, DType::Float64}) {
    SCOPED_TRACE(dtype_name(dt));
    Var a = matrix("a", dt), b = matrix("b", dt), bias = vector("bias", dt), row = matrix("row", dt);
    Tensor A = uniform({256, 96}, dt, 40), B = uniform({96, 130}, dt, 41), Bias = uniform({131}, dt, 42), Bias130 = uniform({130}, dt, 49);
    // dot + bias (the MLP's x.W + b), scaled, transposed operands, a (1, n) row.
    expect_cuda_matches_cpu({a, b, bias}, {dot(a, b) + bias}, {A, B, Bias130}, tol(dt), tol(dt));
    expect_cuda_matches_cpu({a, b, bias}, {dot(a, b) * 0.5 + bias}, {A, B, Bias130}, tol(dt), tol(dt));
    expect_cuda_matches_cpu({a, b, bias}, {dot(a.T(), b.T()) + bias},
                            {uniform({96, 256}, dt, 43), uniform({130, 96}, dt, 44), Bias130}, tol(dt),
                            tol(dt));
    expect_cuda_matches_cpu({a, b, row}, {dot(a, b) + row}, {A, B, uniform({1, 130}, dt, 45)}, tol(dt), tol(dt));
    // A bias one element into its buffer and an operand one column in: addresses cuBLASLt's
    // aligned algorithms cannot take (the bias goes through a copy, the product through an
    // algorithm for that alignment).
    expect_cuda_matches_cpu({a, b, bias}, {dot(a[{colon, slice(1)}], b) + bias},
                            {uniform({256, 97}, dt, 46), B, Bias130}, tol(dt), tol(dt));
    Var bias_in = vector("bias_in", dt);
    expect_cuda_matches_cpu({a, b, bias_in}, {dot(a, b) + bias_in[{slice(1)}]}, {A, B, Bias}, tol(dt), tol(dt));
  }
}

TEST(CudaBlas, TheChosenAlgorithmIsKeptInTheKernelCacheAndGivesTheSameBits) {
  TGC_REQUIRE_CUDA();
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("tgc-cublaslt-" + std::to_string(::getpid()))).string();
  std::filesystem::remove_all(dir);
  Var a = matrix("a", DType::Float32), b = matrix("b", DType::Float32);
  // A shape no other test uses, so this process has no plan for it yet.
  Tensor A = uniform({200, 333}, DType::Float32, 47), B = uniform({333, 77}, DType::Float32, 48);
  Function f = function({a, b}, {dot(a, b)}, {}, cuda_test::on("cuda", {{"cache_dir", dir}}));
  Tensor first = f(A, B)[0];
  EXPECT_GE(kernel_cache_for(dir).info().backends["cublaslt"], 1u) << "no algorithm choice stored in " << dir;
  Function g = function({a, b}, {dot(a, b)}, {}, cuda_test::on("cuda", {{"cache_dir", dir}}));
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(tensors_allclose(g(A, B)[0], first, 0, 0));
  std::filesystem::remove_all(dir);
}

TEST(CudaBlas, BatchedDotWithBroadcastAnd1dOperands) {
  TGC_REQUIRE_CUDA();
  for (DType dt : {DType::Float32, DType::Float64}) {
    SCOPED_TRACE(dtype_name(dt));
    Var x3 = tensor("x3", dt, {-1, -1, -1}), y3 = tensor("y3", dt, {-1, -1, -1}), m = matrix("m", dt),
        v = vector("v", dt);
    Tensor X = uniform({5, 7, 11}, dt, 15), Y = uniform({5, 11, 3}, dt, 16);
    expect_cuda_matches_cpu({x3, y3}, {batched_dot(x3, y3)}, {X, Y}, tol(dt), tol(dt));
    expect_cuda_matches_cpu({x3, y3}, {batched_dot(x3, y3)}, {uniform({1, 7, 11}, dt, 17), Y}, tol(dt), tol(dt));
    expect_cuda_matches_cpu({x3, m}, {batched_dot(x3, m)}, {X, uniform({11, 4}, dt, 18)}, tol(dt), tol(dt));
    expect_cuda_matches_cpu({m, y3}, {batched_dot(m, y3)}, {uniform({2, 11}, dt, 19), Y}, tol(dt), tol(dt));
    expect_cuda_matches_cpu({x3, v}, {batched_dot(x3, v)}, {X, uniform({11}, dt, 20)}, tol(dt), tol(dt));
    expect_cuda_matches_cpu({v, y3}, {batched_dot(v, y3)}, {uniform({11}, dt, 21), Y}, tol(dt), tol(dt));
    // Transposed inner matrices: flags, not copies.
    expect_cuda_matches_cpu({x3, y3}, {batched_dot(x3.dimshuffle({0, 2, 1}), y3)}, {uniform({5, 11, 7}, dt, 22), Y},
                            tol(dt), tol(dt));
  }
}

TEST(CudaBlas, OuterIsExact) {
  TGC_REQUIRE_CUDA();
  Var x = vector("x", DType::Float32), y = vector("y", DType::Float32), m = matrix("m", DType::Float32);
  expect_cuda_matches_cpu({x, y}, {outer(x, y)}, {uniform({33}, DType::Float32, 23), uniform({65}, DType::Float32, 24)}, 0,
                          0);
  expect_cuda_matches_cpu({m, y}, {outer(m, y)}, {uniform({3, 5}, DType::Float32, 25), uniform({7}, DType::Float32, 26)},
                          0, 0);
}

TEST(CudaBlas, EmptyInnerDimensionGivesZeros) {
  TGC_REQUIRE_CUDA();
  Var a = matrix("a", DType::Float32), b = matrix("b", DType::Float32);
  auto got = expect_cuda_matches_cpu({a, b}, {dot(a, b)},
                                     {Tensor::zeros(DType::Float32, {3, 0}), Tensor::zeros(DType::Float32, {0, 4})}, 0, 0);
  EXPECT_EQ(got[0].shape(), (Shape{3, 4}));
}

TEST(CudaBlas, Float32MatmulMatchesFloat32WithoutTf32) {
  TGC_REQUIRE_CUDA();
  // TF32 keeps 10 mantissa bits: its error on 512-term products is ~1e-3 relative, far above
  // float32's ~1e-6. Off by default, so the result must be float32-accurate.
  Var a = matrix("a", DType::Float32), b = matrix("b", DType::Float32);
  Tensor A = uniform({256, 512}, DType::Float32, 27), B = uniform({512, 256}, DType::Float32, 28);
  Function f = function({a, b}, {dot(a, b)}, {}, cuda_test::on("cuda"));
  Tensor got = f(A, B)[0].astype(DType::Float64);
  Var a64 = matrix("a64", DType::Float64), b64 = matrix("b64", DType::Float64);
  Function ref = function({a64, b64}, {dot(a64, b64)}, {}, cuda_test::on("cpu"));
  Tensor want = ref(A.astype(DType::Float64), B.astype(DType::Float64))[0];
  EXPECT_TRUE(tensors_allclose(got, want, 1e-5, 0)) << cuda_test::diff_report(got, want);
}

}  // namespace
}  // namespace tgc
