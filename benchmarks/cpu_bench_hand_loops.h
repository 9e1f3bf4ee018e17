// The hand-written fused C++ loops that cpu_bench measures tgc's LLVM backend against.
#pragma once

#include <cstdint>

namespace tgc::bench {

// out[i] = a[i]*exp(-b[i]) + c[i]*tanh(a[i]) - 0.5*b[i]*c[i], single-threaded, libmvec vector math.
void hand_chain(const float* a, const float* b, const float* c, float* out, int64_t n);
// The sum of a[i]*a[i] (squares in float32, accumulated in double, as tgc's sum does).
double hand_sum_of_squares(const float* a, int64_t n);
// out[i] = exp(x[i]), the tutorial's check1 by hand.
void hand_exp(const float* x, float* out, int64_t n);

}  // namespace tgc::bench
