// OpenBLAS's thread count (see blas_threads.h).
#include "ops/blas/blas_threads.h"

#include <cblas.h>

#include <algorithm>

namespace tgc {

int blas_max_threads() {
  static const int threads = std::max(1, openblas_get_num_threads());
  return threads;
}

void use_blas_threads(int threads) {
  if (openblas_get_num_threads() != threads) openblas_set_num_threads(threads);
}

}  // namespace tgc
