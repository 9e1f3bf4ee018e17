// The hand-written fused C++ loops of cpu_bench, built alone with -O3 -march=native
// -fno-math-errno -fopenmp-simd (benchmarks/CMakeLists.txt) so that they are what a careful
// C++ programmer gets from GCC with glibc's libmvec.
//
// glibc's <math.h> only declares the SIMD variants of expf/tanhf under -ffast-math
// (bits/math-vector.h checks __FAST_MATH__), and -ffast-math would also let GCC reassociate the
// reduction and drop NaN/Inf handling, which tgc's default (fast_math=false) does not do. So the
// two functions are redeclared here with `omp declare simd`, the same declaration glibc makes
// under -ffast-math: GCC then calls libmvec's _ZGVdN8v_expf / _ZGVdN8v_tanhf (AVX2, 8 lanes;
// -march=native on this AVX-512 Xeon prefers 256-bit vectors) in the main loop, with
// _ZGVbN4v_* and scalar calls only in the remainder. Checked with
// `objdump -dr cpu_bench_hand_loops.cpp.o | grep _ZGV` (GCC 12.2, glibc 2.36).
#include "cpu_bench_hand_loops.h"

extern "C" {
#pragma omp declare simd notinbranch
float expf(float) noexcept;
#pragma omp declare simd notinbranch
float tanhf(float) noexcept;
}

namespace tgc::bench {

void hand_chain(const float* __restrict a, const float* __restrict b, const float* __restrict c,
                float* __restrict out, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] * expf(-b[i]) + c[i] * tanhf(a[i]) - 0.5f * b[i] * c[i];
}

double hand_sum_of_squares(const float* __restrict a, int64_t n) {
  double s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) {
    const float sq = a[i] * a[i];
    s += static_cast<double>(sq);
  }
  return s;
}

void hand_exp(const float* __restrict x, float* __restrict out, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) out[i] = expf(x[i]);
}

}  // namespace tgc::bench
