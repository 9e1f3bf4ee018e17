// Stand-alone designs of a long reduction, sum(a*a) over 4000x4000 float32 (64 MB) with double
// accumulation as tgc's kernels do, timed per call as one-call CUDA graphs replayed back to back
// (as tgc replays a call). What chose CUDA's LongReduction (backends/c_family/dialect.cpp):
// docs/performance.md, GPU run 9. Not part of the CMake build; on a GPU machine:
//   nvcc -O3 -std=c++20 -arch=sm_90 reduction_designs.cu -o reduction_designs && ./reduction_designs
// Rows: "chunk" = contiguous chunk per block (+ a pass-2 launch); "gs" = grid-stride (interleaved)
// with T threads, bps blocks per SM, batch loads in flight, mode (0: every element in double,
// 1: a vector's squares in float first, 2: float accumulator), load flavour, "last" = the block
// taking the last ticket combines (no pass 2), "pdl" = pass 2 by programmatic dependent launch.
#include <cub/cub.cuh>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "graph_timer.cuh"

constexpr int N = 4000 * 4000;
constexpr int NV = N / 4;

__global__ void fill(float* a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned h = i * 2654435761u; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    a[i] = (h & 0xffffff) / float(0x1000000) * 2.f - 1.f;
  }
}

template <typename T>
__device__ __forceinline__ T block_sum(T v) {
  __shared__ T sh[32];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(~0u, v, o);
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  if (lane == 0) sh[w] = v;
  __syncthreads();
  const int nw = blockDim.x >> 5;
  v = threadIdx.x < nw ? sh[threadIdx.x] : T(0);
  if (w == 0)
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(~0u, v, o);
  return v;
}

// LOAD 0: __ldg; 1: ld.global.nc.L2::256B; 2: plain load; 3: ld.global.nc.L1::no_allocate.L2::256B
template <int LOAD>
__device__ __forceinline__ float4 ld4(const float4* p) {
  if constexpr (LOAD == 0) return __ldg(p);
  else if constexpr (LOAD == 2) return *p;
  else {
    float4 r;
    if constexpr (LOAD == 1)
      asm volatile("ld.global.nc.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(p));
    else
      asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(p));
    return r;
  }
}

// MODE 0: each element converted and added in double (tgc's semantics); 1: a vector's four
// squares summed in float, then added in double; 2: float accumulator (floor).
template <int MODE>
__device__ __forceinline__ void fold(double& acc, float& facc, float4 x) {
  if constexpr (MODE == 0) {
    acc += (double)(x.x * x.x); acc += (double)(x.y * x.y); acc += (double)(x.z * x.z); acc += (double)(x.w * x.w);
  } else if constexpr (MODE == 1) {
    acc += (double)(x.x * x.x + x.y * x.y + x.z * x.z + x.w * x.w);
  } else {
    facc += x.x * x.x + x.y * x.y + x.z * x.z + x.w * x.w;
  }
}

__device__ unsigned int g_ticket;

// Grid-stride pass 1: thread t reads vectors t, t+S, ... (S = all threads), BATCH loads in flight.
// LAST: the block taking the last ticket combines the partials (single launch).
// PDL: triggers the dependent launch at entry.
template <int T, int MINB, int BATCH, int MODE, int LOAD, bool LAST, bool PDL>
__global__ void __launch_bounds__(T, MINB) gs_pass1(const float4* __restrict__ a, int nv, double* __restrict__ part, float* out) {
  if constexpr (PDL) asm volatile("griddepcontrol.launch_dependents;");
  double acc = 0; float facc = 0;
  const int step = gridDim.x * T;
  int v = blockIdx.x * T + threadIdx.x;
  for (; v + (BATCH - 1) * step < nv; v += BATCH * step) {
    float4 x[BATCH];
#pragma unroll
    for (int b = 0; b < BATCH; ++b) x[b] = ld4<LOAD>(a + v + b * step);
#pragma unroll
    for (int b = 0; b < BATCH; ++b) fold<MODE>(acc, facc, x[b]);
  }
  for (; v < nv; v += step) fold<MODE>(acc, facc, ld4<LOAD>(a + v));
  if constexpr (MODE == 2) acc = facc;
  acc = block_sum(acc);
  if constexpr (!LAST) {
    if (threadIdx.x == 0) part[blockIdx.x] = acc;
  } else {
    __shared__ bool last;
    if (threadIdx.x == 0) {
      part[blockIdx.x] = acc;
      __threadfence();
      last = atomicAdd(&g_ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (last) {
      __threadfence();
      double s = 0;
      for (int i = threadIdx.x; i < (int)gridDim.x; i += T) s += __ldcg(part + i);
      s = block_sum(s);
      if (threadIdx.x == 0) { *out = (float)s; g_ticket = 0; }
    }
  }
}

// Contiguous chunks (tgc's present pass 1): block b reads [b*clen, (b+1)*clen) vectors.
template <int T, int MINB, int BATCH>
__global__ void __launch_bounds__(T, MINB) chunk_pass1(const float4* __restrict__ a, int nv, int clen, double* __restrict__ part) {
  double acc = 0; float facc = 0;
  const int r0 = blockIdx.x * clen, r1 = min(nv, r0 + clen);
  int v = r0 + threadIdx.x;
  for (; v + (BATCH - 1) * T < r1; v += BATCH * T) {
    float4 x[BATCH];
#pragma unroll
    for (int b = 0; b < BATCH; ++b) x[b] = __ldg(a + v + b * T);
#pragma unroll
    for (int b = 0; b < BATCH; ++b) fold<0>(acc, facc, x[b]);
  }
  for (; v < r1; v += T) fold<0>(acc, facc, __ldg(a + v));
  acc = block_sum(acc);
  if (threadIdx.x == 0) part[blockIdx.x] = acc;
}

template <bool PDL>
__global__ void pass2(const double* __restrict__ part, int p, float* out) {
  if constexpr (PDL) asm volatile("griddepcontrol.wait;" ::: "memory");
  double s = 0;
  for (int i = threadIdx.x; i < p; i += blockDim.x) s += part[i];
  s = block_sum(s);
  if (threadIdx.x == 0) *out = (float)s;
}

struct Sq { __device__ double operator()(float x) const { return (double)(x * x); } };

int sms = 0;
float* d_a; double* d_part; float* d_out; char* d_copy;
cudaStream_t st;

double ref = 0;
void check(const char* name) {
  float h; CK(cudaMemcpy(&h, d_out, 4, cudaMemcpyDeviceToHost));
  const double rel = std::fabs(h - ref) / ref;
  if (!(rel < 1e-5)) printf("  !! %s: %.8g vs %.8g (rel %.2e)\n", name, h, ref, rel);
}

void row(const std::string& name, const std::function<void(cudaStream_t)>& enq, int regs = -1, int occ = -1) {
  CK(cudaMemsetAsync(d_out, 0xff, 4, st));
  enq(st);
  CK(cudaStreamSynchronize(st));
  CK(cudaGetLastError());
  check(name.c_str());
  float sp1, sp2;
  const float a = time_graph(st, enq, 200, 7, 20, &sp1);
  const float b = time_graph(st, enq, 200, 7, 20, &sp2);
  printf("%-52s %7.2f us %7.2f us  (spread %.2f/%.2f)  %6.0f GB/s  regs %d occ %d\n", name.c_str(), a, b, sp1, sp2,
         N * 4.0 / (std::min(a, b) * 1e3), regs, occ);
}

template <int T, int MINB, int BATCH, int MODE, int LOAD, bool LAST, bool PDL>
void gs_row(int bps) {
  auto k = gs_pass1<T, MINB, BATCH, MODE, LOAD, LAST, PDL>;
  cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, k));
  int occ; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, T, 0));
  const int blocks = sms * std::min(bps, occ);
  char name[160];
  snprintf(name, sizeof name, "gs T%d minb%d bps%d batch%d mode%d load%d%s%s", T, MINB, bps, BATCH, MODE, LOAD,
           LAST ? " last" : "", PDL ? " pdl" : "");
  row(name, [=](cudaStream_t s) {
    k<<<blocks, T, 0, s>>>(reinterpret_cast<const float4*>(d_a), NV, d_part, d_out);
    if constexpr (!LAST) {
      if constexpr (PDL) {
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = 1; cfg.blockDim = 256; cfg.stream = s;
        cudaLaunchAttribute at[1];
        at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        at[0].val.programmaticStreamSerializationAllowed = 1;
        cfg.attrs = at; cfg.numAttrs = 1;
        CK(cudaLaunchKernelEx(&cfg, pass2<true>, (const double*)d_part, blocks, d_out));
      } else {
        pass2<false><<<1, 256, 0, s>>>(d_part, blocks, d_out);
      }
    }
  }, fa.numRegs, occ);
}

template <int T, int MINB, int BATCH>
void chunk_row(int nblocks) {
  auto k = chunk_pass1<T, MINB, BATCH>;
  cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, k));
  int occ; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, T, 0));
  const int clen = (NV + nblocks - 1) / nblocks;
  char name[160];
  snprintf(name, sizeof name, "chunk T%d minb%d blocks%d batch%d", T, MINB, nblocks, BATCH);
  row(name, [=](cudaStream_t s) {
    k<<<nblocks, T, 0, s>>>(reinterpret_cast<const float4*>(d_a), NV, clen, d_part);
    pass2<false><<<1, 256, 0, s>>>(d_part, nblocks, d_out);
  }, fa.numRegs, occ);
}

int main() {
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  sms = p.multiProcessorCount;
  printf("device %s, %d SMs, L2 %d MB\n", p.name, sms, p.l2CacheSize >> 20);
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  CK(cudaMalloc(&d_a, N * 4)); CK(cudaMalloc(&d_part, 1 << 20)); CK(cudaMalloc(&d_out, 4));
  CK(cudaMalloc(&d_copy, 2 * N * 4));
  fill<<<1024, 256>>>(d_a, N);
  CK(cudaDeviceSynchronize());
  std::vector<float> h(N);
  CK(cudaMemcpy(h.data(), d_a, N * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < N; ++i) ref += (double)h[i] * h[i];

  {  // copy bandwidth: 64 MB and 256 MB device to device
    float sp;
    const float t64 = time_graph(st, [](cudaStream_t s) { CK(cudaMemcpyAsync(d_copy, d_a, N * 4, cudaMemcpyDeviceToDevice, s)); }, 200, 7, 20, &sp);
    const float t128 = time_graph(st, [](cudaStream_t s) { CK(cudaMemcpyAsync(d_copy + N * 4, d_copy, N * 4, cudaMemcpyDeviceToDevice, s)); }, 200, 7, 20, &sp);
    printf("copy 64 MB D2D: %.2f / %.2f us = %.0f GB/s (read+write)\n", t64, t128, 2.0 * N * 4 / (t64 * 1e3));
  }
  {  // CUB
    size_t tb = 0; double* d_dres; CK(cudaMalloc(&d_dres, 8));
    CK(cub::DeviceReduce::TransformReduce(nullptr, tb, d_a, d_dres, N, cuda::std::plus<double>{}, Sq{}, 0.0, st));
    void* tmp; CK(cudaMalloc(&tmp, tb));
    row("cub TransformReduce double", [=](cudaStream_t s) {
      size_t b = tb;
      CK(cub::DeviceReduce::TransformReduce(tmp, b, d_a, d_dres, N, cuda::std::plus<double>{}, Sq{}, 0.0, s));
      pass2<false><<<1, 32, 0, s>>>(d_dres, 1, d_out);
    });
  }
  chunk_row<256, 1, 4>(sms * 8);   // tgc before: 1056 blocks of 256 and a pass-2 launch
  chunk_row<256, 8, 4>(sms * 8);
  gs_row<256, 1, 4, 0, 0, false, false>(6);
  gs_row<256, 8, 4, 0, 0, false, false>(8);
  gs_row<256, 8, 4, 0, 0, false, false>(4);
  gs_row<256, 4, 8, 0, 0, false, false>(4);
  gs_row<256, 8, 4, 1, 0, false, false>(8);
  gs_row<256, 8, 4, 2, 0, false, false>(8);
  gs_row<256, 8, 4, 0, 1, false, false>(8);
  gs_row<256, 8, 4, 0, 3, false, false>(8);
  gs_row<256, 8, 4, 0, 2, false, false>(8);
  gs_row<256, 8, 4, 0, 0, false, false>(2);
  gs_row<256, 8, 4, 0, 0, false, false>(1);
  gs_row<256, 8, 4, 0, 0, true, false>(8);
  gs_row<256, 8, 4, 0, 0, true, false>(4);
  gs_row<256, 8, 4, 0, 0, false, true>(8);
  gs_row<256, 8, 4, 0, 1, true, false>(8);
  gs_row<512, 4, 4, 0, 0, false, false>(4);
  gs_row<512, 4, 4, 0, 0, true, false>(4);
  gs_row<512, 4, 4, 0, 0, true, false>(2);   // tgc now: 2 blocks of 512 per SM, last block combines
  gs_row<1024, 2, 4, 0, 0, false, false>(2);
  gs_row<1024, 2, 4, 0, 0, true, false>(2);
  gs_row<1024, 1, 4, 0, 0, true, false>(1);
  gs_row<1024, 2, 2, 0, 0, true, false>(2);
  gs_row<1024, 2, 8, 0, 0, true, false>(2);
  gs_row<1024, 2, 4, 0, 0, false, true>(2);
  printf("done\n");
  return 0;
}
