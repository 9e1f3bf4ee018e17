// The product-library and thread rule (see product_library.h).
#include "ops/blas/product_library.h"

#include <atomic>

namespace tgc {
namespace {

// The forced library plus one; 0 when none is forced.
std::atomic<int> forced{0};

}  // namespace

ForcedProductLibraryForTests::ForcedProductLibraryForTests(ProductLibrary library)
    : previous_(forced.exchange(static_cast<int>(library) + 1)) {}

ForcedProductLibraryForTests::~ForcedProductLibraryForTests() { forced.store(previous_); }

bool product_work_at_least(int64_t m, int64_t n, int64_t k, int64_t work) {
  if (m <= 0 || n <= 0 || k <= 0) return work <= 0;
  // m*n*k >= work, step by step: each partial product is capped before it could overflow.
  if (m >= work) return true;
  const int64_t mn = m > work / n ? work : m * n;
  return mn >= work || k >= (work + mn - 1) / mn;
}

ProductChoice choose_product(DType dtype, int64_t m, int64_t n, int64_t k, bool have_dnnl, int omp_threads,
                             int blas_threads) {
  const bool vector = m <= 1 || n <= 1;
  if (vector) return {ProductLibrary::OpenBlas, 1};
  const int force = forced.load();
  const bool to_dnnl = dtype == DType::Float32 && have_dnnl &&
                       (force ? force == static_cast<int>(ProductLibrary::OneDnn) + 1
                              : product_work_at_least(m, n, k, kOneDnnMinWork));
  if (to_dnnl) {
    const bool threaded = omp_threads > 1 && product_work_at_least(m, n, k, kOneDnnThreadedWork);
    return {ProductLibrary::OneDnn, threaded ? omp_threads : 1};
  }
  const bool threaded = blas_threads > 1 && product_work_at_least(m, n, k, kOpenBlasThreadedWork);
  return {ProductLibrary::OpenBlas, threaded ? blas_threads : 1};
}

}  // namespace tgc
