// What the oneDNN calls of the conv and pool families share: the CPU engine and the scope
// that gives oneDNN tgc's OpenMP thread count for one call (as dnnl_sgemm_row_major does).
// Included only by the files with a TGC_HAVE_DNNL seam (dnnl_conv.cpp, dnnl_pool.cpp).
#pragma once

#if TGC_HAVE_DNNL
#include <omp.h>

#include <oneapi/dnnl/dnnl.hpp>

#include "ops/blas/dnnl_gemm.h"
#include "runtime/tensor.h"

namespace tgc {

inline dnnl::engine& dnnl_cpu_engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

// oneDNN sizes its OpenMP team from the calling thread's count, an OpenMP setting of this
// thread only: set for the call, restored after (other threads and later kernels keep theirs).
class DnnlThreadScope {
 public:
  DnnlThreadScope() : before_(omp_get_max_threads()) {
    const int threads = dnnl_max_threads();
    if (threads != before_) omp_set_num_threads(threads);
  }
  ~DnnlThreadScope() {
    if (omp_get_max_threads() != before_) omp_set_num_threads(before_);
  }
  DnnlThreadScope(const DnnlThreadScope&) = delete;
  DnnlThreadScope& operator=(const DnnlThreadScope&) = delete;

 private:
  int before_;
};

// A memory object over a tensor's data (the tensor keeps it alive through the call).
inline dnnl::memory dnnl_memory(const dnnl::memory::desc& md, const Tensor& t) {
  return {md, dnnl_cpu_engine(), t.raw_data()};
}

}  // namespace tgc
#endif
