// OpenBLAS's thread count, set per call: how many threads a product gets is decided in
// product_library.h; this file only reads OpenBLAS's own count and applies a choice.
#pragma once

namespace tgc {

// OpenBLAS's thread count before tgc changed it (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS or
// the core count), read once.
int blas_max_threads();

// Sets OpenBLAS's (process-wide) thread count for the coming call. Calls from several host
// threads at once may see each other's setting: only the speed changes, never a result
// (OpenBLAS's results do not depend on its thread count for these routines).
void use_blas_threads(int threads);

}  // namespace tgc
