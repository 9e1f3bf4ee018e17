// How much faster the batch-256 MLP's five float32 products (issue 19) get when cuBLASLt's
// algorithms are searched beyond the heuristic's first 8 candidates (what tgc times today):
// the heuristic asked for 64, then every algorithm id with every tile, split-K count and
// reduction scheme it offers (cublasLtMatmulAlgoGetIds / AlgoInit / AlgoCheck). Small
// products with few output tiles leave most of a 132-SM card idle; split-K is the lever.
// Each configuration is screened on a replayed graph of 10 launches, the best few are timed
// as tgc replays a call, and the winner's result is compared with the heuristic's first
// choice. Then the five products as one step, serial and with the backward pass's two
// independent branches on two captured streams. Not part of the CMake build; on a GPU:
//   nvcc -O3 -std=c++17 -arch=sm_90 lt_search.cu -lcublasLt -o lt_search && ./lt_search
#include <cublasLt.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "cublas_check.cuh"
#include "graph_timer.cuh"

constexpr int B = 256, I = 784, H = 512, O = 10;
constexpr size_t kWs = 32u << 20;
cublasLtHandle_t lt;
void* workspace;
void* side_workspace;

__global__ void fill_kernel(float* p, size_t n, unsigned seed) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) {
    unsigned h = (unsigned(i) + seed) * 2654435761u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    p[i] = (h & 0xffff) / 65536.0f - 0.5f;
  }
}

float* dev(size_t n, unsigned seed) {
  float* p;
  CK(cudaMalloc(&p, n * sizeof(float)));
  fill_kernel<<<(n + 255) / 256, 256>>>(p, n, seed);
  return p;
}

// A row-major product C[m,n] = alpha op(A) op(B) + beta C, in cuBLASLt's column-major terms.
struct Problem {
  const char* what;
  int m, n, k;
  bool ta, tb;
  float alpha, beta;
  const float *a, *b;
  float* c;
};

struct Call {
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t la, lb, lc;
  const Problem* p;
  // Concurrent calls need workspaces of their own (a split-K reduction writes its partial sums there).
  void enqueue(cudaStream_t st, const cublasLtMatmulAlgo_t& algo, float* c, void* ws = workspace) const {
    CB(cublasLtMatmul(lt, desc, &p->alpha, p->b, lb, p->a, la, &p->beta, c, lc, c, lc, &algo, ws, kWs, st));
  }
};

Call make_call(const Problem& g) {
  Call call;
  call.p = &g;
  CB(cublasLtMatmulDescCreate(&call.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasOperation_t opb = g.tb ? CUBLAS_OP_T : CUBLAS_OP_N, opa = g.ta ? CUBLAS_OP_T : CUBLAS_OP_N;
  CB(cublasLtMatmulDescSetAttribute(call.desc, CUBLASLT_MATMUL_DESC_TRANSA, &opb, sizeof opb));
  CB(cublasLtMatmulDescSetAttribute(call.desc, CUBLASLT_MATMUL_DESC_TRANSB, &opa, sizeof opa));
  const int64_t b_rows = g.tb ? g.k : g.n, b_cols = g.tb ? g.n : g.k;
  const int64_t a_rows = g.ta ? g.m : g.k, a_cols = g.ta ? g.k : g.m;
  CB(cublasLtMatrixLayoutCreate(&call.lb, CUDA_R_32F, b_rows, b_cols, b_rows));
  CB(cublasLtMatrixLayoutCreate(&call.la, CUDA_R_32F, a_rows, a_cols, a_rows));
  CB(cublasLtMatrixLayoutCreate(&call.lc, CUDA_R_32F, g.n, g.m, g.n));
  return call;
}

std::vector<cublasLtMatmulAlgo_t> heuristic(const Call& call, int count) {
  cublasLtMatmulPreference_t pref;
  CB(cublasLtMatmulPreferenceCreate(&pref));
  CB(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &kWs, sizeof kWs));
  std::vector<cublasLtMatmulHeuristicResult_t> res(count);
  int found = 0;
  std::vector<cublasLtMatmulAlgo_t> out;
  if (cublasLtMatmulAlgoGetHeuristic(lt, call.desc, call.lb, call.la, call.lc, call.lc, pref, count, res.data(), &found) ==
      CUBLAS_STATUS_SUCCESS)
    for (int i = 0; i < found; ++i)
      if (res[i].state == CUBLAS_STATUS_SUCCESS) out.push_back(res[i].algo);
  cublasLtMatmulPreferenceDestroy(pref);
  return out;
}

template <class T>
std::vector<T> cap_array(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoCapAttributes_t attr) {
  size_t bytes = 0;
  if (cublasLtMatmulAlgoCapGetAttribute(&algo, attr, nullptr, 0, &bytes) != CUBLAS_STATUS_SUCCESS || bytes == 0) return {};
  std::vector<T> v(bytes / sizeof(T));
  CB(cublasLtMatmulAlgoCapGetAttribute(&algo, attr, v.data(), bytes, &bytes));
  return v;
}
template <class T>
T cap(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoCapAttributes_t attr) {
  T v{};
  size_t bytes = 0;
  cublasLtMatmulAlgoCapGetAttribute(&algo, attr, &v, sizeof v, &bytes);
  return v;
}

// Every configuration cuBLASLt accepts for this problem: algorithm ids x tiles x stages x
// split-K counts x reduction schemes (no swizzle, no custom option: they tune large problems).
std::vector<cublasLtMatmulAlgo_t> exhaustive(const Call& call, int* checked) {
  int ids[256], n_ids = 0;
  CB(cublasLtMatmulAlgoGetIds(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 256, ids,
                              &n_ids));
  std::vector<cublasLtMatmulAlgo_t> out;
  const uint32_t splits[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32};
  *checked = 0;
  for (int i = 0; i < n_ids; ++i) {
    cublasLtMatmulAlgo_t algo;
    if (cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, ids[i],
                               &algo) != CUBLAS_STATUS_SUCCESS)
      continue;
    std::vector<uint32_t> tiles = cap_array<uint32_t>(algo, CUBLASLT_ALGO_CAP_TILE_IDS);
    if (tiles.empty()) tiles.push_back(CUBLASLT_MATMUL_TILE_UNDEFINED);
    std::vector<uint32_t> stages = cap_array<uint32_t>(algo, CUBLASLT_ALGO_CAP_STAGES_IDS);
    if (stages.empty()) stages.push_back(CUBLASLT_MATMUL_STAGES_UNDEFINED);
    const int splitk = cap<int32_t>(algo, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT);
    const uint32_t red_mask = cap<uint32_t>(algo, CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK);
    for (uint32_t tile : tiles)
      for (uint32_t stage : stages)
        for (uint32_t s : splits) {
          if (s > 1 && !splitk) break;
          for (uint32_t red : {0u, 1u, 2u, 4u}) {
            if (s == 1 && red != 0) break;
            if (s > 1 && (red == 0 || !(red_mask & red))) continue;
            cublasLtMatmulAlgo_t a = algo;
            CB(cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile));
            CB(cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stage, sizeof stage));
            CB(cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &s, sizeof s));
            CB(cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &red, sizeof red));
            cublasLtMatmulHeuristicResult_t r;
            ++*checked;
            if (cublasLtMatmulAlgoCheck(lt, call.desc, call.lb, call.la, call.lc, call.lc, &a, &r) == CUBLAS_STATUS_SUCCESS &&
                r.workspaceSize <= kWs)
              out.push_back(a);
          }
        }
  }
  return out;
}

uint32_t cfg(const cublasLtMatmulAlgo_t& a, cublasLtMatmulAlgoConfigAttributes_t attr) {
  uint32_t v = 0;
  size_t w;
  cublasLtMatmulAlgoConfigGetAttribute(&a, attr, &v, sizeof v, &w);
  return v;
}

// A quick screen: a graph of 10 launches, replayed 4 times after one warm-up; us per launch.
// Configurations that fail to launch give infinity.
float screen(cudaStream_t st, const Call& call, const cublasLtMatmulAlgo_t& a, float* scratch) {
  cudaGraph_t g;
  cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
  bool ok = true;
  for (int i = 0; i < 10 && ok; ++i)
    ok = cublasLtMatmul(lt, call.desc, &call.p->alpha, call.p->b, call.lb, call.p->a, call.la, &call.p->beta, scratch,
                        call.lc, scratch, call.lc, &a, workspace, kWs, st) == CUBLAS_STATUS_SUCCESS;
  CK(cudaStreamEndCapture(st, &g));
  if (!ok) {
    cudaGraphDestroy(g);
    cudaGetLastError();
    return INFINITY;
  }
  CK(cudaGraphInstantiate(&ge, g, 0));
  CK(cudaGraphLaunch(ge, st));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  CK(cudaEventRecord(e0, st));
  for (int i = 0; i < 4; ++i) CK(cudaGraphLaunch(ge, st));
  CK(cudaEventRecord(e1, st));
  CK(cudaEventSynchronize(e1));
  float ms;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaGraphExecDestroy(ge);
  cudaGraphDestroy(g);
  return ms * 1000.f / 40;
}

struct Timed {
  cublasLtMatmulAlgo_t algo;
  float us;
};

// The best of `algos`: screened, then the best 6 timed properly; returns the winner.
Timed best_of(cudaStream_t st, const Call& call, const std::vector<cublasLtMatmulAlgo_t>& algos, float* scratch) {
  std::vector<Timed> t;
  for (const auto& a : algos) t.push_back({a, screen(st, call, a, scratch)});
  std::sort(t.begin(), t.end(), [](const Timed& x, const Timed& y) { return x.us < y.us; });
  Timed best{t[0].algo, INFINITY};
  for (size_t i = 0; i < std::min<size_t>(6, t.size()); ++i) {
    if (!std::isfinite(t[i].us)) break;
    const float us = time_graph(st, [&](cudaStream_t s) { call.enqueue(s, t[i].algo, scratch); }, 1000, 5);
    if (us < best.us) best = {t[i].algo, us};
  }
  return best;
}

float max_rel_diff(const Call& call, const cublasLtMatmulAlgo_t& a, const cublasLtMatmulAlgo_t& b, cudaStream_t st) {
  const size_t n = size_t(call.p->m) * call.p->n;
  float *ca, *cb;
  CK(cudaMalloc(&ca, n * 4));
  CK(cudaMalloc(&cb, n * 4));
  CK(cudaMemcpyAsync(ca, call.p->c, n * 4, cudaMemcpyDeviceToDevice, st));
  CK(cudaMemcpyAsync(cb, call.p->c, n * 4, cudaMemcpyDeviceToDevice, st));
  call.enqueue(st, a, ca);
  call.enqueue(st, b, cb);
  std::vector<float> ha(n), hb(n);
  CK(cudaMemcpyAsync(ha.data(), ca, n * 4, cudaMemcpyDeviceToHost, st));
  CK(cudaMemcpyAsync(hb.data(), cb, n * 4, cudaMemcpyDeviceToHost, st));
  CK(cudaStreamSynchronize(st));
  float worst = 0, scale = 0;
  for (size_t i = 0; i < n; ++i) {
    worst = std::max(worst, std::fabs(ha[i] - hb[i]));
    scale = std::max(scale, std::fabs(ha[i]));
  }
  cudaFree(ca);
  cudaFree(cb);
  return worst / std::max(scale, 1e-30f);
}

int main() {
  cudaStream_t st, side;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  CK(cudaMalloc(&workspace, kWs));
  CK(cudaMalloc(&side_workspace, kWs));
  CB(cublasLtCreate(&lt));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("%s, %d SMs, cuBLASLt %zu\n", prop.name, prop.multiProcessorCount, cublasLtGetVersion());

  float *x = dev(B * I, 1), *w1 = dev(I * H, 2), *h1 = dev(B * H, 3), *w2 = dev(H * O, 4), *lg = dev(B * O, 5),
        *dlg = dev(B * O, 6), *dh = dev(B * H, 7), *scratch = dev(I * H, 8);
  CK(cudaDeviceSynchronize());
  const Problem problems[] = {
      {"x.W1 (256x784 . 784x512)", B, H, I, false, false, 1.f, 0.f, x, w1, h1},
      {"h.W2 (256x512 . 512x10)", B, O, H, false, false, 1.f, 0.f, h1, w2, lg},
      {"dlogits.W2^T (256x10 . 10x512)", B, H, O, false, true, 1.f, 0.f, dlg, w2, dh},
      {"W1 -= 0.1 x^T.dh (784x256 . 256x512)", I, H, B, true, false, -0.1f, 1.f, x, dh, w1},
      {"W2 -= 0.1 h^T.dlogits (512x256 . 256x10)", H, O, B, true, false, -0.1f, 1.f, h1, dlg, w2},
  };
  std::vector<Call> calls;
  for (const Problem& p : problems) calls.push_back(make_call(p));
  std::vector<cublasLtMatmulAlgo_t> chosen8, chosen_all;
  printf("\nper product, us per replayed launch: heuristic's first / best of 8 (tgc today) / best of 64 / every configuration\n");
  float sum8 = 0, sum_all = 0;
  for (const Call& c : calls) {
    const auto h8 = heuristic(c, 8), h64 = heuristic(c, 64);
    int checked = 0;
    const auto all = exhaustive(c, &checked);
    const float first = time_graph(st, [&](cudaStream_t s) { c.enqueue(s, h8[0], scratch); }, 1000, 5);
    const Timed b8 = best_of(st, c, h8, scratch), b64 = best_of(st, c, h64, scratch), ball = best_of(st, c, all, scratch);
    chosen8.push_back(b8.algo);
    chosen_all.push_back(ball.algo);
    sum8 += b8.us;
    sum_all += ball.us;
    printf("  %-42s %6.2f / %6.2f (%zu) / %6.2f (%zu) / %6.2f (%zu of %d checked): id %u tile %u stages %u splitK %u "
           "reduction %u; rel. diff to the first %.1e\n",
           c.p->what, first, b8.us, h8.size(), b64.us, h64.size(), ball.us, all.size(), checked,
           cfg(ball.algo, CUBLASLT_ALGO_CONFIG_ID), cfg(ball.algo, CUBLASLT_ALGO_CONFIG_TILE_ID),
           cfg(ball.algo, CUBLASLT_ALGO_CONFIG_STAGES_ID), cfg(ball.algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM),
           cfg(ball.algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME), max_rel_diff(c, h8[0], ball.algo, st));
  }
  printf("  sum of the five: best of 8 %.2f us, every configuration %.2f us\n", sum8, sum_all);

  // The five as one step: forward x.W1 -> h.W2; backward dlogits.W2^T -> W1 update, and the
  // W2 update independent of both (it needs only h and dlogits).
  cudaEvent_t fork, join;
  CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  for (int variant = 0; variant < 2; ++variant) {
    const auto& algos = variant == 0 ? chosen8 : chosen_all;
    const float serial = time_graph(st, [&](cudaStream_t s) {
      for (int i = 0; i < 5; ++i) calls[i].enqueue(s, algos[i], problems[i].c);
    }, 2000, 7);
    const float forked = time_graph(st, [&](cudaStream_t s) {
      calls[0].enqueue(s, algos[0], problems[0].c);
      calls[1].enqueue(s, algos[1], problems[1].c);
      CK(cudaEventRecord(fork, s));
      CK(cudaStreamWaitEvent(side, fork));
      calls[4].enqueue(side, algos[4], problems[4].c, side_workspace);
      CK(cudaEventRecord(join, side));
      calls[2].enqueue(s, algos[2], problems[2].c);
      calls[3].enqueue(s, algos[3], problems[3].c);
      CK(cudaStreamWaitEvent(s, join));
    }, 2000, 7);
    printf("\nthe five as one replayed step (%s): serial %.2f us, W2's update on a second branch %.2f us\n",
           variant == 0 ? "best of 8" : "every configuration", serial, forked);
  }
  return 0;
}
