// The per-call OpenBLAS thread policy: one thread for dot, gemv and small gemm, OpenBLAS's own
// count for large gemm; and that a product really leaves OpenBLAS at that count.
#include "ops/blas/blas_threads.h"

#include <cblas.h>
#include <gtest/gtest.h>

#include <limits>

#include "ops/blas/matmul_kernel.h"
#include "runtime/tensor.h"

namespace tgc {
namespace {

TEST(BlasThreads, VectorsAndSmallProductsUseOneThread) {
  EXPECT_EQ(blas_threads_for(1, 1, 1 << 30, 8), 1);      // dot of any length
  EXPECT_EQ(blas_threads_for(400, 1, 784, 8), 1);        // the logreg gemv
  EXPECT_EQ(blas_threads_for(1, 20000, 20000, 8), 1);    // vector-matrix
  EXPECT_EQ(blas_threads_for(128, 128, 128, 8), 1);      // small gemm
  EXPECT_EQ(blas_threads_for(511, 512, 512, 8), 1);
}

TEST(BlasThreads, LargeGemmUsesOpenBlasThreads) {
  EXPECT_EQ(blas_threads_for(512, 512, 512, 8), 8);
  EXPECT_EQ(blas_threads_for(1024, 1024, 1024, 2), 2);
  EXPECT_EQ(blas_threads_for(2, 2, int64_t(1) << 26, 4), 4);
  EXPECT_EQ(blas_threads_for(1024, 1024, 1024, 1), 1);  // OPENBLAS_NUM_THREADS=1 stays 1
  const int64_t huge = std::numeric_limits<int32_t>::max();
  EXPECT_EQ(blas_threads_for(huge, huge, huge, 3), 3);  // no overflow in m*n*k
}

TEST(BlasThreads, AProductSetsOpenBlasToItsCount) {
  const int max = blas_max_threads();
  Tensor a = Tensor::full(DType::Float32, {600, 600}, 1.0), v = Tensor::full(DType::Float32, {600}, 1.0);
  Tensor mv = Tensor::empty(DType::Float32, {600}), mm = Tensor::empty(DType::Float32, {600, 600});
  matmul_strided(a, v, mv, 1.0, 0.0);
  EXPECT_EQ(openblas_get_num_threads(), 1);
  EXPECT_EQ(mv.data<float>()[0], 600.0f);
  matmul_strided(a, a, mm, 1.0, 0.0);
  EXPECT_EQ(openblas_get_num_threads(), max);
  EXPECT_EQ(mm.data<float>()[0], 600.0f);
}

}  // namespace
}  // namespace tgc
