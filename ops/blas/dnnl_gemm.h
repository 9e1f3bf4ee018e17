// oneDNN's row-major sgemm behind one function, so that only dnnl_gemm.cpp knows whether tgc
// was built with oneDNN (TGC_HAVE_DNNL; the GPU machines lack it).
#pragma once

#include <cstdint>

namespace tgc {

// Whether this build can call oneDNN.
bool dnnl_available();

// The threads oneDNN may use from the calling thread: its OpenMP count (OMP_NUM_THREADS or
// the cores, like tgc's kernels), 1 while the machine's load makes teams lose (cpu_team.h);
// 1 without oneDNN.
int dnnl_max_threads();

// C = alpha * op(A) @ op(B) + beta * C, row-major float32: op(A) is (m, k), op(B) is (k, n),
// C is (m, n) with leading dimension ldc; lda/ldb are the stored matrices' leading
// dimensions (BLAS's row-major rules). Runs on `threads` OpenMP threads (oneDNN's Debian
// build threads with OpenMP, the pool of tgc's kernels): the calling thread's OpenMP count is
// set for the call and restored after. C is not read when beta == 0. An internal error
// when oneDNN is not built in (callers ask choose_product, which never picks it then) or
// reports a failure.
void dnnl_sgemm_row_major(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                          const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                          int64_t ldc, int threads);

}  // namespace tgc
