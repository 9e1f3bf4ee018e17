// The oneDNN call (see dnnl_gemm.h): the one file with a TGC_HAVE_DNNL seam.
#include "ops/blas/dnnl_gemm.h"

#include <fmt/format.h>

#include "runtime/cpu_team.h"
#include "runtime/error.h"

#if TGC_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>
#include <omp.h>
#endif

namespace tgc {

bool dnnl_available() { return TGC_HAVE_DNNL != 0; }

int dnnl_max_threads() {
#if TGC_HAVE_DNNL
  // Fewer while tgc's kernel teams are losing to the machine's other load (cpu_team.h): a
  // oneDNN team waits for its slowest thread just the same.
  return team_threads(omp_get_max_threads());
#else
  return 1;
#endif
}

void dnnl_sgemm_row_major(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                          const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                          int64_t ldc, int threads) {
#if TGC_HAVE_DNNL
  // oneDNN sizes its OpenMP team from the calling thread's count (omp_get_max_threads), an
  // OpenMP setting of this thread only: other host threads and later tgc kernels keep theirs.
  const int before = omp_get_max_threads();
  if (threads != before) omp_set_num_threads(threads);
  const dnnl_status_t status =
      dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  if (threads != before) omp_set_num_threads(before);
  TGC_INTERNAL_CHECK(status == dnnl_success,
                     fmt::format("dnnl_sgemm({}, {}, m={}, n={}, k={}, lda={}, ldb={}, ldc={}) failed with status {}",
                                 trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, lda, ldb, ldc,
                                 static_cast<int>(status)));
#else
  (void)trans_a, (void)trans_b, (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda, (void)b, (void)ldb,
      (void)beta, (void)c, (void)ldc, (void)threads;
  TGC_INTERNAL_CHECK(false, "dnnl_sgemm_row_major: tgc was built without oneDNN");
#endif
}

}  // namespace tgc
