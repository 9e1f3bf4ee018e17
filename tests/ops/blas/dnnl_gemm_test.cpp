// Products through oneDNN (ops/blas/dnnl_gemm.h, forced for every size) against the same
// products through OpenBLAS and a float64 reference: transposed, sliced, strided and reversed
// operands, alpha and beta (beta == 0 never reads C), zero-size and k == 0 shapes, and sizes
// where oneDNN uses several threads.
#include "ops/blas/dnnl_gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops/blas/matmul_kernel.h"
#include "ops/blas/product_library.h"
#include "runtime/random.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using namespace test;

// alpha * a @ b + beta * c in float64, the textbook loop.
Tensor reference(const Tensor& a, const Tensor& b, const Tensor& c, double alpha, double beta) {
  const int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  Tensor out = Tensor::empty(DType::Float64, {m, n});
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < k; ++p) acc += a.at({i, p}) * b.at({p, j});
      out.data<double>()[i * n + j] = alpha * acc + (beta == 0 ? 0.0 : beta * c.at({i, j}));
    }
  return out;
}

// out = alpha * a @ b + beta * c through `library` (C copied into the output first, as Gemm
// does).
Tensor product(ProductLibrary library, const Tensor& a, const Tensor& b, const Tensor& c, double alpha, double beta) {
  ForcedProductLibraryForTests force(library);
  Tensor out = c.copy();
  matmul_strided(a, b, out, alpha, beta);
  return out;
}

// The same values in several layouts: contiguous, column-major (BLAS's transpose flag), a
// column slice of a wider matrix (ld > cols), every other row of a taller one (a stride BLAS
// cannot describe: copied) and reversed rows (a negative stride: copied).
std::vector<std::pair<const char*, Tensor>> layouts(const Tensor& t) {
  const int64_t r = t.shape()[0], c = t.shape()[1];
  Tensor wide = Tensor::zeros(t.dtype(), {r, c + 3});
  copy_elements(t, slice_view(wide, 1, 2, c + 2));
  Tensor tall = Tensor::zeros(t.dtype(), {2 * r, c});
  copy_elements(t, slice_view(tall, 0, 0, 2 * r, 2));
  return {{"contiguous", t},
          {"column-major", fortran_layout(t)},
          {"column slice", slice_view(wide, 1, 2, c + 2)},
          {"every other row", slice_view(tall, 0, 0, 2 * r, 2)},
          {"reversed rows", reversed_layout(t, 0)}};
}

class DnnlGemm : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!dnnl_available()) GTEST_SKIP() << "built without oneDNN";
  }
};

TEST_F(DnnlGemm, MatchesOpenBlasAndTheReferenceForEveryLayout) {
  RandomState rng(19);
  for (auto [m, n, k] : {std::tuple{5, 4, 7}, {1, 6, 3}, {33, 17, 65}, {150, 120, 100}}) {
    const Tensor A = rng.randn({m, k}).astype(DType::Float32), B = rng.randn({k, n}).astype(DType::Float32);
    const Tensor C = rng.randn({m, n}).astype(DType::Float32);
    for (auto [alpha, beta] : {std::pair{1.0, 0.0}, {-0.1, 1.0}, {0.5, -2.0}}) {
      const Tensor want = reference(A, B, C, alpha, beta);
      const double tol = 1e-5 * std::sqrt(static_cast<double>(k)) * 4;
      for (auto& [a_name, a] : layouts(A))
        for (auto& [b_name, b] : layouts(B)) {
          SCOPED_TRACE(::testing::Message() << m << "x" << n << "x" << k << " alpha=" << alpha << " beta=" << beta
                                            << " A " << a_name << ", B " << b_name);
          const Tensor dnnl = product(ProductLibrary::OneDnn, a, b, C, alpha, beta);
          const Tensor blas = product(ProductLibrary::OpenBlas, a, b, C, alpha, beta);
          EXPECT_TRUE(same_values(dnnl.astype(DType::Float64), want, tol, tol));
          EXPECT_TRUE(same_values(dnnl, blas, tol, tol));
        }
    }
  }
}

TEST_F(DnnlGemm, BetaZeroNeverReadsC) {
  RandomState rng(3);
  const Tensor A = rng.randn({9, 8}).astype(DType::Float32), B = rng.randn({8, 7}).astype(DType::Float32);
  const Tensor nans = Tensor::full(DType::Float32, {9, 7}, std::numeric_limits<double>::quiet_NaN());
  const Tensor got = product(ProductLibrary::OneDnn, A, B, nans, 2.0, 0.0);
  EXPECT_TRUE(same_values(got.astype(DType::Float64), reference(A, B, nans, 2.0, 0.0), 1e-5, 1e-5));
}

TEST_F(DnnlGemm, ZeroSizesAndAnEmptyInnerDimension) {
  const Tensor c = Tensor::full(DType::Float32, {3, 4}, 2.0);
  // k == 0: every entry is an empty sum, so out = beta * C.
  Tensor got = product(ProductLibrary::OneDnn, Tensor::zeros(DType::Float32, {3, 0}),
                       Tensor::zeros(DType::Float32, {0, 4}), c, 1.5, 0.5);
  EXPECT_TRUE(same_values(got, Tensor::full(DType::Float32, {3, 4}, 1.0)));
  got = product(ProductLibrary::OneDnn, Tensor::zeros(DType::Float32, {3, 0}), Tensor::zeros(DType::Float32, {0, 4}),
                c, 1.5, 0.0);
  EXPECT_TRUE(same_values(got, Tensor::zeros(DType::Float32, {3, 4})));
  // m == 0 or n == 0: nothing to write.
  got = product(ProductLibrary::OneDnn, Tensor::zeros(DType::Float32, {0, 5}), Tensor::zeros(DType::Float32, {5, 4}),
                Tensor::zeros(DType::Float32, {0, 4}), 1.0, 0.0);
  EXPECT_EQ(got.shape(), (Shape{0, 4}));
  got = product(ProductLibrary::OneDnn, Tensor::zeros(DType::Float32, {3, 5}), Tensor::zeros(DType::Float32, {5, 0}),
                Tensor::zeros(DType::Float32, {3, 0}), 1.0, 0.0);
  EXPECT_EQ(got.shape(), (Shape{3, 0}));
}

// The entry point itself, called the way matmul_kernel.cpp calls it, with leading dimensions
// wider than the matrices and a C block inside a larger buffer (ldc > n).
TEST_F(DnnlGemm, LeadingDimensionsAndTransposeFlags) {
  const int64_t m = 3, n = 2, k = 4, lda = 6, ldb = 5, ldc = 7;
  std::vector<float> a(static_cast<size_t>(k * lda)), b(static_cast<size_t>(k * ldb)), c(static_cast<size_t>(m * ldc), -1);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 5) - 2;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 3) + 1;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      std::fill(c.begin(), c.end(), -1.0f);
      dnnl_sgemm_row_major(ta, tb, m, n, k, 2.0f, a.data(), lda, b.data(), ldb, 0.5f, c.data(), ldc, 1);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < ldc; ++j) {
          if (j >= n) {
            EXPECT_EQ(c[i * ldc + j], -1.0f) << "wrote outside C";
            continue;
          }
          double acc = 0;
          for (int64_t p = 0; p < k; ++p)
            acc += double(ta ? a[p * lda + i] : a[i * lda + p]) * double(tb ? b[j * ldb + p] : b[p * ldb + j]);
          EXPECT_FLOAT_EQ(c[i * ldc + j], static_cast<float>(2 * acc - 0.5)) << "transA=" << ta << " transB=" << tb;
        }
    }
}

TEST_F(DnnlGemm, ABadLeadingDimensionIsAnInternalError) {
  std::vector<float> a(12), b(12), c(12);
  EXPECT_THROW(dnnl_sgemm_row_major(false, false, 3, 4, 4, 1.0f, a.data(), 2, b.data(), 4, 0.0f, c.data(), 4, 1),
               InternalError);
}

}  // namespace
}  // namespace tgc
