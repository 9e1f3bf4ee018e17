// Matrix products through cuBLASLt for the cuBLAS library (cublas_library.cpp): a row-major
// gemm, optionally with a bias row added in the product kernel's epilogue (no separate copy of
// the bias into the output), on an algorithm chosen once per problem.
//
// Why choose: on the batch-256 MLP's products (issue 19) cuBLAS's own pick is up to 2.5x
// slower than the best of the candidates cuBLASLt's heuristic offers for the same problem
// (256x10 . 10x512: 8.4 us against 3.4 us on an H100; benchmarks/cuda_experiments/
// mlp_products.cu, docs/performance.md). The first call of a problem outside a recording times
// the candidates on a scratch output and keeps the fastest, process-wide and in the kernel
// cache (so later processes on the machine reuse it without timing, and keep its bits: two
// algorithms may round differently, and a choice by timing alone could flip between runs).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "backends/cuda/cuda_device.h"
#include "runtime/config.h"
#include "runtime/dtype.h"

namespace tgc::cuda {

// One row-major product: c (m x n, leading dimension ldc) = alpha op(a) op(b) + beta c
// [+ bias row], with a (m x k as op(a)), b (k x n as op(b)) stored row-major with leading
// dimensions lda and ldb, transposed when trans_a / trans_b. The algorithm choice is keyed by
// all of it but the pointers and alpha (beta only by whether it is zero).
struct LtProblem {
  DType dtype = DType::Float32;
  int64_t m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;
  int64_t lda = 1, ldb = 1, ldc = 1;
  bool beta_zero = true;
  bool bias = false;  // a length-n bias row added in the epilogue
  // The largest power of two (at most 256) dividing each operand's address: cuBLASLt's
  // algorithms differ in the alignment they need (a view into a buffer may be less aligned).
  int align_a = 256, align_b = 256, align_c = 256;
  std::string key() const;
  bool operator==(const LtProblem&) const = default;
};

class LtGemm {
 public:
  // `workspace` (of `workspace_bytes`) is the device's cuBLAS workspace: cuBLAS and cuBLASLt
  // calls share it, enqueued in order on the device's stream.
  LtGemm(CudaDevice& device, const Config& config, void* workspace, size_t workspace_bytes);
  ~LtGemm();
  LtGemm(const LtGemm&) = delete;
  LtGemm& operator=(const LtGemm&) = delete;

  // Enqueues the product on the device's stream; false (nothing enqueued) when cuBLASLt has no
  // algorithm for it, so the caller uses another path.
  bool run(const LtProblem& p, double alpha, const void* a, const void* b, double beta, void* c,
           const void* bias = nullptr);

  struct Plan;     // descriptors and the chosen algorithm of one problem (cublaslt_gemm.cpp)
  struct Context;  // the device's handle and plans, shared by every LtGemm of the device

 private:
  std::shared_ptr<Plan> plan_for(const LtProblem& p, const void* a, const void* b, const void* bias);

  CudaDevice& device_;
  Context& ctx_;
  // The last problem this thunk's library ran and its chosen plan: a call of a compiled
  // function repeats its shapes, so it skips the key's formatting and the map (the plan's
  // choice is final once tuned).
  LtProblem last_;
  std::shared_ptr<Plan> last_plan_;
  bool tf32_;
  std::string cache_dir_;
  void* workspace_;
  size_t workspace_bytes_;
};

}  // namespace tgc::cuda
