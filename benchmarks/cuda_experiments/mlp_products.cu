// How far down the batch-256 MLP step (784-512 relu-10, issue 19) can go on one GPU: each of
// its five float32 products alone through cuBLAS, all five back to back, the same through
// cuBLASLt with the epilogues that would absorb the step's small kernels (bias, relu with its
// mask, the relu gradient, the bias gradients), and the cost of one empty kernel in a replayed
// graph. Everything is captured as a CUDA graph and replayed, as tgc replays a call. Not part
// of the CMake build; on a GPU machine:
//   nvcc -O3 -std=c++17 -arch=sm_90 mlp_products.cu -lcublas -lcublasLt -o mlp_products && ./mlp_products
#include <cublasLt.h>
#include <cublas_v2.h>

#include <cstdio>
#include <vector>

#include "cublas_check.cuh"
#include "graph_timer.cuh"

__global__ void empty_kernel() {}

constexpr int B = 256, I = 784, H = 512, O = 10;

float* dev(size_t n) {
  float* p;
  CK(cudaMalloc(&p, n * sizeof(float)));
  CK(cudaMemset(p, 0, n * sizeof(float)));
  return p;
}

// A row-major product C[m,n] (= alpha op(A) op(B) + beta C) as cuBLAS's column-major C^T.
struct Gemm {
  const char* what;
  int m, n, k;
  bool ta, tb;
  float beta;
};

cublasLtHandle_t lt;
void* workspace;
constexpr size_t kWs = 32u << 20;

// One cuBLASLt matmul with `epilogue` on the row-major problem, in column-major terms:
// D^T (n x m) = op(B)^T (n x k) op(A)^T (k x m). Returns false if no algorithm supports it.
struct LtCall {
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatmulAlgo_t algo;
  cublasLtMatmulAlgo_t candidates[16];
  int count = 0;
  const float *a, *b;
  float* c;
  float alpha, beta;
  bool ok = false;
  void enqueue(cudaStream_t st) const {
    CB(cublasLtMatmul(lt, desc, &alpha, b, lb, a, la, &beta, c, lc, c, lc, &algo, workspace, kWs, st));
  }
};

LtCall make_lt(const Gemm& g, const float* a, const float* b, float* c, float alpha, cublasLtEpilogue_t epi,
               const void* bias, void* aux, int64_t aux_ld,
               cublasComputeType_t compute = CUBLAS_COMPUTE_32F) {
  LtCall call;
  call.a = a;
  call.b = b;
  call.c = c;
  call.alpha = alpha;
  call.beta = g.beta;
  CB(cublasLtMatmulDescCreate(&call.desc, compute, CUDA_R_32F));
  cublasOperation_t opb = g.tb ? CUBLAS_OP_T : CUBLAS_OP_N, opa = g.ta ? CUBLAS_OP_T : CUBLAS_OP_N;
  CB(cublasLtMatmulDescSetAttribute(call.desc, CUBLASLT_MATMUL_DESC_TRANSA, &opb, sizeof opb));
  CB(cublasLtMatmulDescSetAttribute(call.desc, CUBLASLT_MATMUL_DESC_TRANSB, &opa, sizeof opa));
  CB(cublasLtMatmulDescSetAttribute(call.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
  if (bias) CB(cublasLtMatmulDescSetAttribute(call.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
  if (aux) {
    CB(cublasLtMatmulDescSetAttribute(call.desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &aux, sizeof aux));
    CB(cublasLtMatmulDescSetAttribute(call.desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &aux_ld, sizeof aux_ld));
  }
  // Column-major: "A" is B^T stored (rows = its leading dim), "B" is A^T stored.
  const int64_t b_rows = g.tb ? g.k : g.n, b_cols = g.tb ? g.n : g.k;
  const int64_t a_rows = g.ta ? g.m : g.k, a_cols = g.ta ? g.k : g.m;
  CB(cublasLtMatrixLayoutCreate(&call.lb, CUDA_R_32F, b_rows, b_cols, b_rows));
  CB(cublasLtMatrixLayoutCreate(&call.la, CUDA_R_32F, a_rows, a_cols, a_rows));
  CB(cublasLtMatrixLayoutCreate(&call.lc, CUDA_R_32F, g.n, g.m, g.n));
  cublasLtMatmulPreference_t pref;
  CB(cublasLtMatmulPreferenceCreate(&pref));
  CB(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &kWs, sizeof kWs));
  cublasLtMatmulHeuristicResult_t res[16];
  int found = 0;
  cublasStatus_t s = cublasLtMatmulAlgoGetHeuristic(lt, call.desc, call.lb, call.la, call.lc, call.lc, pref, 16, res, &found);
  if (s == CUBLAS_STATUS_SUCCESS && found > 0) {
    call.algo = res[0].algo;
    for (int i = 0; i < found; ++i) call.candidates[call.count++] = res[i].algo;
    call.ok = true;
  } else {
    printf("  (%s with epilogue %d: no algorithm, status %d)\n", g.what, int(epi), int(s));
  }
  return call;
}

int main() {
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cublasHandle_t h;
  CB(cublasCreate(&h));
  CB(cublasSetStream(h, st));
  CK(cudaMalloc(&workspace, kWs));
  CB(cublasSetWorkspace(h, workspace, kWs));
  CB(cublasLtCreate(&lt));
  int dev_id;
  cudaDeviceProp prop;
  CK(cudaGetDevice(&dev_id));
  CK(cudaGetDeviceProperties(&prop, dev_id));
  printf("%s\n", prop.name);

  float *x = dev(B * I), *w1 = dev(I * H), *b1 = dev(H), *h1 = dev(B * H), *w2 = dev(H * O), *b2 = dev(O),
        *lg = dev(B * O), *dlg = dev(B * O), *dh = dev(B * H), *db1 = dev(H), *db2 = dev(O);
  void* mask;
  CK(cudaMalloc(&mask, B * H));  // one bit per element is enough; generous

  const std::vector<Gemm> gemms = {
      {"x.W1 (256x784 . 784x512)", B, H, I, false, false, 0.f},
      {"h.W2 (256x512 . 512x10)", B, O, H, false, false, 0.f},
      {"dlogits.W2^T (256x10 . 10x512)", B, H, O, false, true, 0.f},
      {"W1 -= 0.1 x^T.dh (784x256 . 256x512)", I, H, B, true, false, 1.f},
      {"W2 -= 0.1 h^T.dlogits (512x256 . 256x10)", H, O, B, true, false, 1.f},
  };
  const float* as[] = {x, h1, dlg, x, h1};
  const float* bs[] = {w1, w2, w2, dh, dlg};
  float* cs[] = {h1, lg, dh, w1, w2};
  auto sgemm = [&](int i, cudaStream_t) {
    const Gemm& g = gemms[i];
    const float alpha = g.beta == 1.f ? -0.1f : 1.f;
    CB(cublasSgemm(h, g.tb ? CUBLAS_OP_T : CUBLAS_OP_N, g.ta ? CUBLAS_OP_T : CUBLAS_OP_N, g.n, g.m, g.k, &alpha,
                   bs[i], g.tb ? g.k : g.n, as[i], g.ta ? g.m : g.k, &g.beta, cs[i], g.n));
  };
  const int calls = 2000, reps = 7;
  printf("\none empty kernel per replay: %.2f us\n", time_graph(st, [](cudaStream_t s) { empty_kernel<<<1, 32, 0, s>>>(); }, calls, reps));
  printf("ten empty kernels per replay: %.2f us\n", time_graph(st, [](cudaStream_t s) {
           for (int i = 0; i < 10; ++i) empty_kernel<<<1, 32, 0, s>>>();
         }, calls, reps));
  printf("\ncuBLAS cublasSgemm, float32 (no TF32), one product per replay:\n");
  for (int i = 0; i < 5; ++i)
    printf("  %-42s %.2f us\n", gemms[i].what, time_graph(st, [&](cudaStream_t s) { sgemm(i, s); }, calls, reps));
  printf("  all five in one replay: %.2f us\n", time_graph(st, [&](cudaStream_t s) {
           for (int i = 0; i < 5; ++i) sgemm(i, s);
         }, calls, reps));

  printf("\ncuBLASLt, float32, plain and with the epilogues that would absorb the small kernels:\n");
  std::vector<LtCall> plain;
  for (int i = 0; i < 5; ++i)
    plain.push_back(make_lt(gemms[i], as[i], bs[i], cs[i], gemms[i].beta == 1.f ? -0.1f : 1.f, CUBLASLT_EPILOGUE_DEFAULT,
                            nullptr, nullptr, 0));
  for (int i = 0; i < 5; ++i)
    if (plain[i].ok)
      printf("  %-42s %.2f us\n", gemms[i].what, time_graph(st, [&](cudaStream_t s) { plain[i].enqueue(s); }, calls, reps));
  struct Fused {
    const char* what;
    LtCall call;
  };
  const Fused fused[] = {
      {"relu(x.W1 + b1) with its mask", make_lt(gemms[0], x, w1, h1, 1.f, CUBLASLT_EPILOGUE_RELU_AUX_BIAS, b1, mask, H)},
      {"relu(x.W1 + b1), no mask", make_lt(gemms[0], x, w1, h1, 1.f, CUBLASLT_EPILOGUE_RELU_BIAS, b1, nullptr, 0)},
      {"h.W2 + b2", make_lt(gemms[1], h1, w2, lg, 1.f, CUBLASLT_EPILOGUE_BIAS, b2, nullptr, 0)},
      {"mask * (dlogits.W2^T)", make_lt(gemms[2], dlg, w2, dh, 1.f, CUBLASLT_EPILOGUE_DRELU, nullptr, mask, H)},
      {"mask * (dlogits.W2^T) and its bias gradient", make_lt(gemms[2], dlg, w2, dh, 1.f, CUBLASLT_EPILOGUE_DRELU_BGRAD, db1, mask, H)},
      {"W1 -= 0.1 x^T.dh and dh's column sums", make_lt(gemms[3], x, dh, w1, -0.1f, CUBLASLT_EPILOGUE_BGRADA, db1, nullptr, 0)},
      {"W2 -= 0.1 h^T.dlogits and dlogits' column sums", make_lt(gemms[4], h1, dlg, w2, -0.1f, CUBLASLT_EPILOGUE_BGRADA, db2, nullptr, 0)},
  };
  for (const Fused& f : fused)
    if (f.call.ok) printf("  %-48s %.2f us\n", f.what, time_graph(st, [&](cudaStream_t s) { f.call.enqueue(s); }, calls, reps));
  // The heuristic's first choice against the best of its candidates, timed (what a per-shape
  // autotuner, cached like cuDNN's algorithm choice, would find).
  printf("\ncuBLASLt float32: heuristic's first choice / best of its candidates (count):\n");
  for (int i = 0; i < 5; ++i) {
    LtCall call = plain[i];
    float first = time_graph(st, [&](cudaStream_t s) { call.enqueue(s); }, 500, 5), best = first;
    for (int c = 0; c < call.count; ++c) {
      call.algo = call.candidates[c];
      best = std::min(best, time_graph(st, [&](cudaStream_t s) { call.enqueue(s); }, 500, 5));
    }
    printf("  %-42s %.2f / %.2f us (%d)\n", gemms[i].what, first, best, call.count);
  }
  printf("\nfor comparison, TF32 tensor cores (config cuda_tf32; not float32's rounding):\n");
  for (int i = 0; i < 5; ++i) {
    LtCall call = make_lt(gemms[i], as[i], bs[i], cs[i], gemms[i].beta == 1.f ? -0.1f : 1.f, CUBLASLT_EPILOGUE_DEFAULT,
                          nullptr, nullptr, 0, CUBLAS_COMPUTE_32F_FAST_TF32);
    if (!call.ok) continue;
    float best = 1e9;
    for (int c = 0; c < call.count; ++c) {
      call.algo = call.candidates[c];
      best = std::min(best, time_graph(st, [&](cudaStream_t s) { call.enqueue(s); }, 500, 5));
    }
    printf("  %-42s best %.2f us\n", gemms[i].what, best);
  }
  return 0;
}
