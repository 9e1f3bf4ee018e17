// cuBLASLt products (cublaslt_gemm.h): per device one handle and one plan per problem — the
// matmul and layout descriptors, made once, and the algorithm, timed once.
#include "backends/cuda/cublaslt_gemm.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <vector>

#include "backends/cuda/cuda_error.h"
#include "backends/cuda/toolkit_libraries.h"
#include "runtime/compile_log.h"
#include "runtime/kernel_cache.h"
#include "runtime/kernel_uses.h"

namespace tgc::cuda {

std::string LtProblem::key() const {
  return fmt::format("gemm {} m{} n{} k{} {}{} ld{},{},{} beta{} bias{} align{},{},{}", dtype_name(dtype), m, n, k,
                     trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', lda, ldb, ldc, beta_zero ? 0 : 1, bias ? 1 : 0,
                     align_a, align_b, align_c);
}

struct LtGemm::Plan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  std::vector<cublasLtMatmulAlgo_t> candidates;  // the heuristic's, best guess first
  cublasLtMatmulAlgo_t algo{};
  bool ok = false;     // some algorithm exists
  bool tuned = false;  // algo is the chosen one (timed, from the cache, or the only one)
  // The kernel-cache entry of the choice, noted for each function that runs the plan (a saved
  // function ships the choices its products used: docs/save.md).
  std::vector<KernelUses::Use> choice;
  uint64_t noted = 0;
  ~Plan() {
    if (la) cublaslt_api().MatrixLayoutDestroy(la);
    if (lb) cublaslt_api().MatrixLayoutDestroy(lb);
    if (lc) cublaslt_api().MatrixLayoutDestroy(lc);
    if (desc) cublaslt_api().MatmulDescDestroy(desc);
  }
};

namespace {

// The candidates the heuristic is asked for: enough to hold the fastest on every MLP product
// measured (it was within the first 8), few enough that timing them costs a few milliseconds
// per problem, once (about 30 ms for the MLP's five on an H100, kernel loading included).
constexpr int kCandidates = 8;

}  // namespace

// Per device: the handle, and the plans by problem key. Calls hold the mutex: a plan's
// descriptor takes the call's bias pointer.
struct LtGemm::Context {
  cublasLtHandle_t handle = nullptr;
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<LtGemm::Plan>> plans;
};

namespace {

using LtContext = LtGemm::Context;

LtContext& lt_context(CudaDevice& device) {
  static std::mutex mutex;
  static auto* contexts = new std::map<int, std::unique_ptr<LtContext>>();  // process lifetime
  std::lock_guard<std::mutex> lock(mutex);
  auto& c = (*contexts)[device.ordinal()];
  if (!c) {
    const auto t0 = std::chrono::steady_clock::now();
    DeviceGuard guard(device.ordinal());
    auto ctx = std::make_unique<LtContext>();
    TGC_CUBLAS_CHECK(cublaslt_api().Create(&ctx->handle));
    c = std::move(ctx);
    if (CompileLog* log = current_compile_log())
      log->add_library_setup("cuBLASLt handle on " + device.name(),
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return *c;
}

// Half operands multiply on tensor cores with float32 accumulation and float32 alpha/beta
// (docs/precision.md); float32 ones in float32 (TF32 when asked), float64 in float64.
cudaDataType_t data_type(DType d) {
  switch (d) {
    case DType::Float64: return CUDA_R_64F;
    case DType::Float16: return CUDA_R_16F;
    case DType::BFloat16: return CUDA_R_16BF;
    default: return CUDA_R_32F;
  }
}
size_t element_bytes(DType d) { return dtype_size(d); }

// The descriptors of the row-major problem as cuBLASLt's column-major one: D^T (n x m) =
// op(B)^T op(A)^T, so cuBLASLt's "A" is our b and its "B" our a.
std::shared_ptr<LtGemm::Plan> make_plan(cublasLtHandle_t handle, const LtProblem& p, bool tf32, size_t workspace) {
  auto plan = std::make_shared<LtGemm::Plan>();
  const cublasComputeType_t compute = p.dtype == DType::Float64 ? CUBLAS_COMPUTE_64F
                                      : tf32                    ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                                : CUBLAS_COMPUTE_32F;
  const cudaDataType_t type = data_type(p.dtype);
  const cudaDataType_t scale = p.dtype == DType::Float64 ? CUDA_R_64F : CUDA_R_32F;
  TGC_CUBLAS_CHECK(cublaslt_api().MatmulDescCreate(&plan->desc, compute, scale));
  const cublasOperation_t op_b = p.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, op_a = p.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  TGC_CUBLAS_CHECK(cublaslt_api().MatmulDescSetAttribute(plan->desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_b, sizeof op_b));
  TGC_CUBLAS_CHECK(cublaslt_api().MatmulDescSetAttribute(plan->desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_a, sizeof op_a));
  const cublasLtEpilogue_t epilogue = p.bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
  TGC_CUBLAS_CHECK(cublaslt_api().MatmulDescSetAttribute(plan->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue));
  if (p.bias) {
    const cudaDataType_t bias_type = type;
    TGC_CUBLAS_CHECK(
        cublaslt_api().MatmulDescSetAttribute(plan->desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type));
  }
  // Stored matrices: b is (k x n), or (n x k) when transposed, row-major with leading dimension
  // ldb: column-major that is (n x k) or (k x n) with the same leading dimension.
  const uint64_t b_rows = p.trans_b ? p.k : p.n, b_cols = p.trans_b ? p.n : p.k;
  const uint64_t a_rows = p.trans_a ? p.m : p.k, a_cols = p.trans_a ? p.k : p.m;
  TGC_CUBLAS_CHECK(cublaslt_api().MatrixLayoutCreate(&plan->lb, type, b_rows, b_cols, p.ldb));
  TGC_CUBLAS_CHECK(cublaslt_api().MatrixLayoutCreate(&plan->la, type, a_rows, a_cols, p.lda));
  TGC_CUBLAS_CHECK(cublaslt_api().MatrixLayoutCreate(&plan->lc, type, p.n, p.m, p.ldc));

  cublasLtMatmulPreference_t pref = nullptr;
  TGC_CUBLAS_CHECK(cublaslt_api().MatmulPreferenceCreate(&pref));
  const uint64_t ws = workspace;
  cublaslt_api().MatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
  const uint32_t align_a = p.align_b, align_b = p.align_a, align_c = p.align_c;  // cuBLASLt's A is our b
  cublaslt_api().MatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &align_a, sizeof align_a);
  cublaslt_api().MatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &align_b, sizeof align_b);
  cublaslt_api().MatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &align_c, sizeof align_c);
  cublaslt_api().MatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &align_c, sizeof align_c);
  cublasLtMatmulHeuristicResult_t results[kCandidates];
  int found = 0;
  const cublasStatus_t st = cublaslt_api().MatmulAlgoGetHeuristic(handle, plan->desc, plan->lb, plan->la, plan->lc, plan->lc,
                                                           pref, kCandidates, results, &found);
  cublaslt_api().MatmulPreferenceDestroy(pref);
  if (st == CUBLAS_STATUS_SUCCESS)
    for (int i = 0; i < found; ++i)
      if (results[i].state == CUBLAS_STATUS_SUCCESS) plan->candidates.push_back(results[i].algo);
  plan->ok = !plan->candidates.empty();
  if (plan->ok) plan->algo = plan->candidates[0];
  plan->tuned = plan->candidates.size() == 1;
  return plan;
}

KernelCacheKey choice_key(const CudaDevice& device, const LtProblem& p, bool tf32) {
  const CudaDeviceInfo& info = device.info();
  return KernelCacheKey{"cublaslt", p.key(), fmt::format("cuBLASLt {}", cublaslt_api().GetVersion()),
                        fmt::format("{} sm_{} {} SMs", info.name, info.arch(), info.multiprocessors),
                        fmt::format("tf32={}", tf32 ? 1 : 0)};
}

}  // namespace

LtGemm::LtGemm(CudaDevice& device, const Config& config, void* workspace, size_t workspace_bytes)
    : device_(device),
      ctx_(lt_context(device)),  // the handle now, inside function(), not on the first call
      tf32_(config.cuda_tf32),
      cache_dir_(config.cache_dir),
      workspace_(workspace),
      workspace_bytes_(workspace_bytes) {}

LtGemm::~LtGemm() = default;

std::shared_ptr<LtGemm::Plan> LtGemm::plan_for(const LtProblem& p, const void* a, const void* b, const void* bias) {
  Context& ctx = ctx_;
  auto& plan = ctx.plans[p.key()];
  if (!plan) plan = make_plan(ctx.handle, p, tf32_ && p.dtype == DType::Float32, workspace_bytes_);
  // Timing synchronises: never while the call is being recorded (the recording keeps the
  // heuristic's choice; the next plain call times).
  if (!plan->ok || plan->tuned || device_.recording()) return plan;

  KernelCache& cache = kernel_cache_for(cache_dir_);
  const KernelCacheKey key = choice_key(device_, p, tf32_ && p.dtype == DType::Float32);
  if (auto blob = cache.get(key); blob && (*blob)->size() == sizeof(cublasLtMatmulAlgo_t)) {
    // Only an algorithm the heuristic offers now: an entry is data from disk, never trusted.
    for (const cublasLtMatmulAlgo_t& c : plan->candidates)
      if (std::memcmp(&c, (*blob)->data(), sizeof c) == 0) {
        plan->algo = c;
        plan->tuned = true;
        plan->choice = {{&cache, key}};
        return plan;
      }
  }

  // Time each candidate on a scratch output (the real one may be an input too: an update in
  // place must be written once); keep the fastest. Each measurement spans at least ~100 us of
  // launches (a few-microsecond product timed over three runs picked a kernel twice as slow
  // as the best on one H100 and the best on another), and the candidates are measured in two
  // interleaved rounds, each keeping its better round, so a clock or neighbour disturbance
  // during one candidate's turn does not decide.
  cudaStream_t stream = device_.stream();
  const size_t out_bytes = element_bytes(p.dtype) * static_cast<size_t>(p.ldc) * static_cast<size_t>(p.m);
  void* scratch = device_.allocate(out_bytes, device_.default_stream());
  TGC_CUDA_CHECK(cudaMemsetAsync(scratch, 0, out_bytes, stream));
  cudaEvent_t start = nullptr, stop = nullptr;
  TGC_CUDA_CHECK(cudaEventCreate(&start));
  TGC_CUDA_CHECK(cudaEventCreate(&stop));
  const double one = 1, beta = p.beta_zero ? 0 : 1;
  const float one_f = 1, beta_f = static_cast<float>(beta);
  const void* alpha_ptr = p.dtype == DType::Float64 ? static_cast<const void*>(&one) : &one_f;
  const void* beta_ptr = p.dtype == DType::Float64 ? static_cast<const void*>(&beta) : &beta_f;
  if (p.bias)
    TGC_CUBLAS_CHECK(cublaslt_api().MatmulDescSetAttribute(plan->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
  auto launch = [&](const cublasLtMatmulAlgo_t& c) {
    return cublaslt_api().Matmul(ctx.handle, plan->desc, alpha_ptr, b, plan->lb, a, plan->la, beta_ptr, scratch, plan->lc,
                          scratch, plan->lc, &c, workspace_, workspace_bytes_, stream);
  };
  // Milliseconds per launch of candidate c over `reps` launches.
  auto measure = [&](const cublasLtMatmulAlgo_t& c, int reps) {
    TGC_CUDA_CHECK(cudaEventRecord(start, stream));
    for (int i = 0; i < reps; ++i) TGC_CUBLAS_CHECK(launch(c));
    TGC_CUDA_CHECK(cudaEventRecord(stop, stream));
    TGC_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    TGC_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    return ms / static_cast<float>(reps);
  };
  struct Timed {
    const cublasLtMatmulAlgo_t* algo;
    int reps;
    float best;
  };
  std::vector<Timed> runnable;
  for (const cublasLtMatmulAlgo_t& c : plan->candidates) {
    if (launch(c) != CUBLAS_STATUS_SUCCESS) continue;  // a candidate that cannot run here (and the warm-up)
    const float first = measure(c, 1);
    const int reps = static_cast<int>(std::clamp(0.1f / std::max(first, 1e-4f), 3.0f, 50.0f));
    runnable.push_back({&c, reps, std::numeric_limits<float>::infinity()});
  }
  for (int round = 0; round < 2; ++round)
    for (Timed& t : runnable) t.best = std::min(t.best, measure(*t.algo, t.reps));
  float best = std::numeric_limits<float>::infinity();
  for (const Timed& t : runnable)
    if (t.best < best) {
      best = t.best;
      plan->algo = *t.algo;
    }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  device_.deallocate(scratch, out_bytes, device_.default_stream());
  plan->tuned = true;
  plan->choice = {{&cache, key}};
  const auto* bytes = reinterpret_cast<const uint8_t*>(&plan->algo);
  cache.put(key, KernelBlob(bytes, bytes + sizeof plan->algo));
  return plan;
}

bool LtGemm::run(const LtProblem& p, double alpha, const void* a, const void* b, double beta, void* c,
                 const void* bias) {
  Context& ctx = ctx_;
  std::lock_guard<std::mutex> lock(ctx.mutex);
  DeviceGuard guard(device_.ordinal());
  if (!last_plan_ || !last_plan_->tuned || !(p == last_)) {
    last_plan_ = plan_for(p, a, b, bias);
    last_ = p;
  }
  const std::shared_ptr<Plan>& plan = last_plan_;
  if (!plan->ok) return false;
  note_kernel_uses_once(plan->choice, plan->noted);  // under ctx.mutex, as the plan is shared
  if (p.bias)
    TGC_CUBLAS_CHECK(cublaslt_api().MatmulDescSetAttribute(plan->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
  const float alpha_f = static_cast<float>(alpha), beta_f = static_cast<float>(beta);
  const void* al = p.dtype == DType::Float64 ? static_cast<const void*>(&alpha) : &alpha_f;
  const void* be = p.dtype == DType::Float64 ? static_cast<const void*>(&beta) : &beta_f;
  TGC_CUBLAS_CHECK(cublaslt_api().Matmul(ctx.handle, plan->desc, al, b, plan->lb, a, plan->la, be, c, plan->lc, c, plan->lc,
                                  &plan->algo, workspace_, workspace_bytes_, device_.stream()));
  return true;
}

}  // namespace tgc::cuda
