// How many threads OpenBLAS may use for one call: one for dot and gemv (memory-bound and
// short: handing them to a second thread costs more than it saves, and on a loaded machine
// OpenBLAS's spinning threads slow them tenfold), OpenBLAS's own count for large gemm.
// docs/cpu-backend.md ("BLAS threads") has the measurements.
#pragma once

#include <cstdint>

namespace tgc {

// Multiply-adds (m*n*k) from which a gemm may use several threads: 512^3.
inline constexpr int64_t kThreadedGemmWork = int64_t(1) << 27;

// The thread count for a product of (m, k) by (k, n) when OpenBLAS may use `max_threads`:
// 1 for vectors (m == 1 or n == 1: dot, gemv) and for gemm below kThreadedGemmWork.
int blas_threads_for(int64_t m, int64_t n, int64_t k, int max_threads);

// OpenBLAS's thread count before tgc changed it (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS or
// the core count), read once.
int blas_max_threads();

// Sets OpenBLAS's (process-wide) thread count for the coming call of that shape. Calls from
// several host threads at once may see each other's setting: only the speed changes, never
// a result (OpenBLAS's results do not depend on its thread count for these routines).
void use_blas_threads_for(int64_t m, int64_t n, int64_t k);

}  // namespace tgc
