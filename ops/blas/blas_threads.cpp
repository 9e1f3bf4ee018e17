// The per-call OpenBLAS thread count (see blas_threads.h).
#include "ops/blas/blas_threads.h"

#include <cblas.h>

#include <algorithm>

namespace tgc {

int blas_threads_for(int64_t m, int64_t n, int64_t k, int max_threads) {
  if (max_threads <= 1 || m <= 1 || n <= 1) return 1;
  // m*n*k without overflow: compare step by step.
  const int64_t mn = m > kThreadedGemmWork / n ? kThreadedGemmWork : m * n;
  const bool large = mn >= kThreadedGemmWork || k >= (kThreadedGemmWork + mn - 1) / mn;
  return large ? max_threads : 1;
}

int blas_max_threads() {
  static const int threads = std::max(1, openblas_get_num_threads());
  return threads;
}

void use_blas_threads_for(int64_t m, int64_t n, int64_t k) {
  const int threads = blas_threads_for(m, n, k, blas_max_threads());
  if (openblas_get_num_threads() != threads) openblas_set_num_threads(threads);
}

}  // namespace tgc
