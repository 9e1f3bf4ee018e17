// The product-library and thread rule of ops/blas/product_library.h, as a pure function of the
// shape, and what a product really leaves behind (OpenBLAS's thread count).
#include "ops/blas/product_library.h"

#include <cblas.h>
#include <gtest/gtest.h>

#include <limits>

#include "ops/blas/blas_threads.h"
#include "ops/blas/dnnl_gemm.h"
#include "ops/blas/matmul_kernel.h"
#include "runtime/tensor.h"

namespace tgc {

void PrintTo(ProductChoice c, std::ostream* os) {
  *os << (c.library == ProductLibrary::OneDnn ? "oneDNN" : "OpenBLAS") << " x" << c.threads;
}

namespace {

constexpr DType F32 = DType::Float32, F64 = DType::Float64;
constexpr ProductChoice blas(int t) { return {ProductLibrary::OpenBlas, t}; }
constexpr ProductChoice dnnl(int t) { return {ProductLibrary::OneDnn, t}; }

TEST(ProductLibrary, VectorsGoToOpenBlasOnOneThread) {
  for (bool have : {false, true}) {
    EXPECT_EQ(choose_product(F32, 1, 1, 1 << 30, have, 8, 8), blas(1));    // dot of any length
    EXPECT_EQ(choose_product(F32, 400, 1, 784, have, 8, 8), blas(1));      // the logreg gemv
    EXPECT_EQ(choose_product(F32, 1, 20000, 20000, have, 8, 8), blas(1));  // vector-matrix
    EXPECT_EQ(choose_product(F64, 4096, 1, 4096, have, 8, 8), blas(1));
  }
}

TEST(ProductLibrary, Float32MatricesGoToOneDnnFrom64Cubed) {
  EXPECT_EQ(choose_product(F32, 63, 64, 64, true, 2, 2), blas(1));
  EXPECT_EQ(choose_product(F32, 32, 32, 32, true, 2, 2), blas(1));
  EXPECT_EQ(choose_product(F32, 64, 64, 64, true, 2, 2), dnnl(1));
  EXPECT_EQ(choose_product(F32, 2, 2, int64_t(1) << 16, true, 2, 2), dnnl(1));
  // Without oneDNN in the build they stay on OpenBLAS, one thread below 512^3.
  EXPECT_EQ(choose_product(F32, 256, 512, 784, false, 2, 2), blas(1));
  // float64 is OpenBLAS's whatever the size.
  EXPECT_EQ(choose_product(F64, 256, 512, 784, true, 2, 2), blas(1));
}

TEST(ProductLibrary, EveryProductOfTheMlpStepIsThreadedThroughOneDnn) {
  // The batch-256 784-512-10 step (benchmarks/cpu_blas_bench.cpp's mlp rows).
  EXPECT_EQ(choose_product(F32, 256, 512, 784, true, 2, 2), dnnl(2));
  EXPECT_EQ(choose_product(F32, 256, 10, 512, true, 2, 2), dnnl(2));
  EXPECT_EQ(choose_product(F32, 512, 10, 256, true, 2, 2), dnnl(2));
  EXPECT_EQ(choose_product(F32, 256, 512, 10, true, 2, 2), dnnl(2));
  EXPECT_EQ(choose_product(F32, 784, 512, 256, true, 2, 2), dnnl(2));
  // Below 2^20 multiply-adds one thread; OMP_NUM_THREADS=1 keeps one everywhere.
  EXPECT_EQ(choose_product(F32, 100, 100, 104, true, 2, 2), dnnl(1));
  EXPECT_EQ(choose_product(F32, 128, 128, 64, true, 2, 2), dnnl(2));
  EXPECT_EQ(choose_product(F32, 4096, 4096, 4096, true, 1, 2), dnnl(1));
}

TEST(ProductLibrary, OpenBlasIsThreadedFrom512Cubed) {
  EXPECT_EQ(choose_product(F64, 511, 512, 512, true, 8, 8), blas(1));
  EXPECT_EQ(choose_product(F64, 512, 512, 512, true, 8, 8), blas(8));
  EXPECT_EQ(choose_product(F32, 1024, 1024, 1024, false, 2, 2), blas(2));
  EXPECT_EQ(choose_product(F64, 2, 2, int64_t(1) << 26, true, 4, 4), blas(4));
  EXPECT_EQ(choose_product(F64, 1024, 1024, 1024, true, 2, 1), blas(1));  // OPENBLAS_NUM_THREADS=1
  const int64_t huge = std::numeric_limits<int32_t>::max();
  EXPECT_EQ(choose_product(F64, huge, huge, huge, true, 3, 3), blas(3));  // no overflow in m*n*k
  EXPECT_EQ(choose_product(F32, huge, huge, huge, true, 3, 3), dnnl(3));
}

TEST(ProductLibrary, WorkComparisonHasNoOverflow) {
  EXPECT_TRUE(product_work_at_least(64, 64, 64, 1 << 18));
  EXPECT_FALSE(product_work_at_least(64, 64, 63, 1 << 18));
  const int64_t big = std::numeric_limits<int64_t>::max() / 2;
  EXPECT_TRUE(product_work_at_least(big, big, big, big));
  EXPECT_FALSE(product_work_at_least(1, 1, big - 1, big));
  EXPECT_FALSE(product_work_at_least(0, 5, 5, 1));
}

TEST(ProductLibrary, ATestCanForceALibraryForAnySize) {
  {
    ForcedProductLibraryForTests force(ProductLibrary::OneDnn);
    EXPECT_EQ(choose_product(F32, 2, 3, 4, true, 2, 2), dnnl(1));
    EXPECT_EQ(choose_product(F32, 2, 3, 4, false, 2, 2), blas(1));  // only where it is built
    EXPECT_EQ(choose_product(F64, 2, 3, 4, true, 2, 2), blas(1));
    EXPECT_EQ(choose_product(F32, 1, 3, 4, true, 2, 2), blas(1));   // vectors stay
    {
      ForcedProductLibraryForTests inner(ProductLibrary::OpenBlas);
      EXPECT_EQ(choose_product(F32, 256, 512, 784, true, 2, 2), blas(1));
    }
    EXPECT_EQ(choose_product(F32, 256, 512, 784, true, 2, 2), dnnl(2));
  }
  EXPECT_EQ(choose_product(F32, 2, 3, 4, true, 2, 2), blas(1));
}

// What a product really does to OpenBLAS's process-wide count: a vector product sets it to 1,
// a large float64 product to OpenBLAS's own count.
TEST(ProductLibrary, AProductSetsOpenBlasToItsCount) {
  const int max = blas_max_threads();
  Tensor a = Tensor::full(F64, {600, 600}, 1.0), v = Tensor::full(F64, {600}, 1.0);
  Tensor mv = Tensor::empty(F64, {600}), mm = Tensor::empty(F64, {600, 600});
  matmul_strided(a, v, mv, 1.0, 0.0);
  EXPECT_EQ(openblas_get_num_threads(), 1);
  EXPECT_EQ(mv.data<double>()[0], 600.0);
  matmul_strided(a, a, mm, 1.0, 0.0);
  EXPECT_EQ(openblas_get_num_threads(), max);
  EXPECT_EQ(mm.data<double>()[0], 600.0);
}

// A oneDNN product leaves OpenBLAS alone and restores the calling thread's OpenMP count.
TEST(ProductLibrary, AOneDnnProductKeepsTheCallersThreadCounts) {
  if (!dnnl_available()) GTEST_SKIP() << "built without oneDNN";
  const int omp_before = dnnl_max_threads();
  use_blas_threads(2);  // a product through OpenBLAS would set 1 for this size
  Tensor a = Tensor::full(F32, {300, 300}, 1.0);
  Tensor mm = Tensor::empty(F32, {300, 300});
  matmul_strided(a, a, mm, 1.0, 0.0);
  EXPECT_EQ(mm.data<float>()[0], 300.0f);
  EXPECT_EQ(openblas_get_num_threads(), 2);
  EXPECT_EQ(dnnl_max_threads(), omp_before);
  use_blas_threads(blas_max_threads());
}

}  // namespace
}  // namespace tgc
