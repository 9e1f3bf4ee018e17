// The fused chain a*exp(-b) + c*tanh(a) - 0.5*b*c over 2^26 float32: tgc's elementwise vector
// entry with its element function called in different ways, against a device-to-device copy.
// Found that an out-of-line element function writing its results through pointers sent them
// through local memory (89% of the copy on an H200; by value 101%): docs/performance.md, GPU
// run 9. Not part of the CMake build; on a GPU machine:
//   nvcc -O3 -std=c++20 -arch=sm_90 chain_element_calls.cu -o chain_element_calls && ./chain_element_calls
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

#include "graph_timer.cuh"

constexpr int N = 1 << 26;
constexpr int NV = N / 4;

#define ELEM_BODY                         \
  const float v3 = (0x1p-1f);             \
  const float v4 = (-v0);                 \
  const float v5 = expf(v4);              \
  const float v6 = (v1 * v5);             \
  const float v7 = tanhf(v1);             \
  const float v8 = (v2 * v7);             \
  const float v9 = (v6 + v8);             \
  const float v10 = (v3 * v0);            \
  const float v11 = (v10 * v2);           \
  const float v12 = (v9 - v11);           \
  *r0 = v12;

static __device__ __noinline__ void elem_call(float v0, float v1, float v2, float* r0, int* tgc_err) { ELEM_BODY (void)tgc_err; }
static __device__ __forceinline__ void elem_inl(float v0, float v1, float v2, float* r0, int* tgc_err) { ELEM_BODY (void)tgc_err; }
struct R1 { float r0; int err; };
static __device__ __noinline__ R1 elem_val(float v0, float v1, float v2) { R1 out; float* r0 = &out.r0; ELEM_BODY out.err = 0; return out; }
struct R4 { float4 r; int err; };
static __device__ __noinline__ R4 elem4_val(float4 a, float4 b, float4 c) {
  R4 out; int e = 0;
  elem_inl(a.x, b.x, c.x, &out.r.x, &e); elem_inl(a.y, b.y, c.y, &out.r.y, &e);
  elem_inl(a.z, b.z, c.z, &out.r.z, &e); elem_inl(a.w, b.w, c.w, &out.r.w, &e);
  out.err = e; return out;
}
static __device__ __noinline__ void elem4_call(float4 a, float4 b, float4 c, float4* r, int* tgc_err) {
  elem_inl(a.x, b.x, c.x, &r->x, tgc_err);
  elem_inl(a.y, b.y, c.y, &r->y, tgc_err);
  elem_inl(a.z, b.z, c.z, &r->z, tgc_err);
  elem_inl(a.w, b.w, c.w, &r->w, tgc_err);
}

// MODE 0: noinline per lane (tgc today); 1: inline; 2: noinline 4-lane function; 3: no math (a+b-c)
template <int MODE, int UNROLL>
__global__ void chain(const float* __restrict__ p0, const float* __restrict__ p1, const float* __restrict__ p2, float* __restrict__ p3, int n) {
  int tgc_errors = 0;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const int step = gridDim.x * blockDim.x;
  const int nv = n / 4;
  int i = tid;
  for (; i + (UNROLL - 1) * step < nv; i += UNROLL * step) {
    float4 a0[UNROLL], a1[UNROLL], a2[UNROLL], b0[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      a0[u] = ((const float4*)p0)[i + u * step];
      a1[u] = ((const float4*)p1)[i + u * step];
      a2[u] = ((const float4*)p2)[i + u * step];
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      if constexpr (MODE == 0) {
        elem_call(a0[u].x, a1[u].x, a2[u].x, &b0[u].x, &tgc_errors);
        elem_call(a0[u].y, a1[u].y, a2[u].y, &b0[u].y, &tgc_errors);
        elem_call(a0[u].z, a1[u].z, a2[u].z, &b0[u].z, &tgc_errors);
        elem_call(a0[u].w, a1[u].w, a2[u].w, &b0[u].w, &tgc_errors);
      } else if constexpr (MODE == 1) {
        elem_inl(a0[u].x, a1[u].x, a2[u].x, &b0[u].x, &tgc_errors);
        elem_inl(a0[u].y, a1[u].y, a2[u].y, &b0[u].y, &tgc_errors);
        elem_inl(a0[u].z, a1[u].z, a2[u].z, &b0[u].z, &tgc_errors);
        elem_inl(a0[u].w, a1[u].w, a2[u].w, &b0[u].w, &tgc_errors);
      } else if constexpr (MODE == 4) {
        R1 r;
        r = elem_val(a0[u].x, a1[u].x, a2[u].x); b0[u].x = r.r0; tgc_errors |= r.err;
        r = elem_val(a0[u].y, a1[u].y, a2[u].y); b0[u].y = r.r0; tgc_errors |= r.err;
        r = elem_val(a0[u].z, a1[u].z, a2[u].z); b0[u].z = r.r0; tgc_errors |= r.err;
        r = elem_val(a0[u].w, a1[u].w, a2[u].w); b0[u].w = r.r0; tgc_errors |= r.err;
      } else if constexpr (MODE == 5) {
        R4 r = elem4_val(a0[u], a1[u], a2[u]); b0[u] = r.r; tgc_errors |= r.err;
      } else if constexpr (MODE == 2) {
        elem4_call(a0[u], a1[u], a2[u], &b0[u], &tgc_errors);
      } else {
        b0[u] = make_float4(a0[u].x + a1[u].x - a2[u].x, a0[u].y + a1[u].y - a2[u].y, a0[u].z + a1[u].z - a2[u].z,
                            a0[u].w + a1[u].w - a2[u].w);
      }
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) ((float4*)p3)[i + u * step] = b0[u];
  }
  for (; i < nv; i += step) {
    const float4 a0 = ((const float4*)p0)[i], a1 = ((const float4*)p1)[i], a2 = ((const float4*)p2)[i];
    float4 b0;
    elem_inl(a0.x, a1.x, a2.x, &b0.x, &tgc_errors);
    elem_inl(a0.y, a1.y, a2.y, &b0.y, &tgc_errors);
    elem_inl(a0.z, a1.z, a2.z, &b0.z, &tgc_errors);
    elem_inl(a0.w, a1.w, a2.w, &b0.w, &tgc_errors);
    ((float4*)p3)[i] = b0;
  }
  if (tgc_errors) atomicOr((int*)p3, 0);
}

__global__ void fill(float* a, int n, unsigned seed) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned h = (i + seed) * 2654435761u; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    a[i] = (h & 0xffffff) / float(0x1000000) * 4.f - 2.f;
  }
}

cudaStream_t st;

int main() {
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  const int sms = p.multiProcessorCount;
  printf("device %s, %d SMs\n", p.name, sms);
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  float *a, *b, *c, *o; char *c1, *c2;
  CK(cudaMalloc(&a, N * 4)); CK(cudaMalloc(&b, N * 4)); CK(cudaMalloc(&c, N * 4)); CK(cudaMalloc(&o, N * 4));
  CK(cudaMalloc(&c1, 1 << 28)); CK(cudaMalloc(&c2, 1 << 28));
  fill<<<1024, 256>>>(a, N, 1); fill<<<1024, 256>>>(b, N, 2); fill<<<1024, 256>>>(c, N, 3);
  CK(cudaDeviceSynchronize());
  const float tc = time_graph(st, [&](cudaStream_t s) { CK(cudaMemcpyAsync(c2, c1, 1 << 28, cudaMemcpyDeviceToDevice, s)); }, 50, 5);
  const double copy_gbs = 2.0 * (1 << 28) / (tc * 1e3);
  printf("copy 2^28 B D2D: %.1f us = %.0f GB/s\n", tc, copy_gbs);
  std::vector<float> ha(N), hb(N), hc(N), ho(N);
  CK(cudaMemcpy(ha.data(), a, N * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(hb.data(), b, N * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hc.data(), c, N * 4, cudaMemcpyDeviceToHost));
  auto row = [&](const char* name, auto kern, int blocks, int threads) {
    CK(cudaMemset(o, 0xff, N * 4));
    kern<<<blocks, threads, 0, st>>>(b, a, c, o, N);
    CK(cudaStreamSynchronize(st)); CK(cudaGetLastError());
    CK(cudaMemcpy(ho.data(), o, N * 4, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int i = 0; i < N; i += 97) {
      const double av = ha[i], bv = hb[i], cv = hc[i];
      const double want = av * std::exp(-bv) + cv * std::tanh(av) - 0.5 * bv * cv;
      worst = std::max(worst, std::fabs(ho[i] - want) / (1e-5 + std::fabs(want)));
    }
    float t1 = time_graph(st, [&](cudaStream_t s) { kern<<<blocks, threads, 0, s>>>(b, a, c, o, N); }, 20, 5);
    float t2 = time_graph(st, [&](cudaStream_t s) { kern<<<blocks, threads, 0, s>>>(b, a, c, o, N); }, 20, 5);
    const float t = std::min(t1, t2);
    const double gbs = 16.0 * N / (t * 1e3);
    printf("%-44s %7.1f / %7.1f us  %6.0f GB/s  %5.1f%% of copy  (err %.1e)\n", name, t1, t2, gbs, 100 * gbs / copy_gbs, worst);
  };
  const int g = std::min(NV / 256, 32 * sms);
  row("noinline, results through pointers (tgc before)", chain<0, 1>, g, 256);
  row("noinline, through pointers, unroll 2", chain<0, 2>, g, 256);
  row("inline", chain<1, 1>, g, 256);
  row("inline, unroll 2", chain<1, 2>, g, 256);
  row("inline, unroll 4", chain<1, 4>, g, 256);
  row("noinline 4-lane function through pointers", chain<2, 1>, g, 256);
  row("noinline, results by value (tgc now)", chain<4, 1>, g, 256);
  row("noinline by value, unroll 2", chain<4, 2>, g, 256);
  row("noinline 4-lane function by value", chain<5, 1>, g, 256);
  row("no math (a+b-c)", chain<3, 1>, g, 256);
  row("inline, one wave 8x256/SM", chain<1, 1>, 8 * sms, 256);
  row("noinline through pointers, one wave", chain<0, 1>, 8 * sms, 256);
  printf("copy again: %.1f us\n", time_graph(st, [&](cudaStream_t s) { CK(cudaMemcpyAsync(c2, c1, 1 << 28, cudaMemcpyDeviceToDevice, s)); }, 50, 5));
  return 0;
}
