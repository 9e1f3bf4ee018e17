// What cuBLAS's first call costs in a fresh process: the context, cublasCreate, then the
// logistic regression's gemv (400x784, float32) three times, the other transpose twice, and
// once more on a new stream. On a lent H200 (2026-11-27) the first gemv took 68-72 ms with lazy
// module loading (98 ms after a 1.6 s cublasCreate with CUDA_MODULE_LOADING=EAGER) and every
// later one 0.02-0.08 ms: a once-per-process cost inside cuBLAS, which the first call of a
// tgc function holding a product pays (docs/performance.md, "Starts"). Not part of the CMake
// build; on a GPU machine:
//   g++ -O2 -std=c++17 cublas_first_call.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64 \
//       -lcublas -lcudart -o cublas_first_call && ./cublas_first_call
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>

// Every call checked: a probe that times a failed call would report nonsense.
#define CK(x)                                                                              \
  do {                                                                                     \
    if (int s_ = static_cast<int>(x); s_ != 0) {                                           \
      std::printf("%s failed with status %d at %s:%d\n", #x, s_, __FILE__, __LINE__);      \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)
static double ms(std::chrono::steady_clock::time_point a) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count();
}
int main() {
  auto t = std::chrono::steady_clock::now();
  CK(cudaFree(0)); std::printf("context %.1f ms\n", ms(t));
  t = std::chrono::steady_clock::now();
  cublasHandle_t h; CK(cublasCreate(&h)); std::printf("cublasCreate %.1f ms\n", ms(t));
  float *x, *w, *y; CK(cudaMalloc(&x, 400 * 784 * 4)); CK(cudaMalloc(&w, 784 * 4)); CK(cudaMalloc(&y, 400 * 4));
  CK(cudaMemset(x, 0, 400 * 784 * 4)); CK(cudaMemset(w, 0, 784 * 4)); CK(cudaDeviceSynchronize());
  const float one = 1, zero = 0;
  for (int i = 0; i < 3; ++i) {
    t = std::chrono::steady_clock::now();
    CK(cublasSgemv(h, CUBLAS_OP_T, 784, 400, &one, x, 784, w, 1, &zero, y, 1));
    CK(cudaDeviceSynchronize()); std::printf("gemv T #%d %.2f ms\n", i, ms(t));
  }
  for (int i = 0; i < 2; ++i) {
    t = std::chrono::steady_clock::now();
    CK(cublasSgemv(h, CUBLAS_OP_N, 784, 400, &one, x, 784, y, 1, &one, w, 1));
    CK(cudaDeviceSynchronize()); std::printf("gemv N #%d %.2f ms\n", i, ms(t));
  }
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); CK(cublasSetStream(h, s));
  t = std::chrono::steady_clock::now();
  CK(cublasSgemv(h, CUBLAS_OP_T, 784, 400, &one, x, 784, w, 1, &zero, y, 1));
  CK(cudaStreamSynchronize(s)); std::printf("gemv T on a new stream %.2f ms\n", ms(t));
  return 0;
}
