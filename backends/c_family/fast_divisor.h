// Division of non-negative int32 indices by a divisor fixed for a launch, as a multiply-high,
// an add and a shift (Granlund and Montgomery's method): the planner computes each shape
// dim's (multiplier, shift) once per launch and passes it packed in one params slot; the
// strided kernels' index splitting then avoids the GPU's ~20-instruction integer division,
// which bounded them (an 8M-element three-dim strided kernel on an H100: 1.3 TB/s).
//
// For a divisor d >= 1, s = ceil(log2 d) and m = floor(2^32 (2^s - d) / d) + 1 (< 2^32), and
// for every t < 2^31: t / d == (mulhi32(t, m) + t) >> s (the sum stays below 2^32).
#pragma once

#include <cstdint>

namespace tgc::cfam {

// The packed slot value: m << 8 | s.
inline int64_t fast_divisor(int64_t d) {
  const uint64_t divisor = d < 1 ? 1 : static_cast<uint64_t>(d);
  int s = 0;
  while ((uint64_t{1} << s) < divisor) ++s;
  const uint64_t m = ((uint64_t{1} << 32) * ((uint64_t{1} << s) - divisor)) / divisor + 1;
  return static_cast<int64_t>(m << 8 | static_cast<uint64_t>(s));
}

// What the kernels compute with a packed slot, for t < 2^31 (the host's reference).
inline uint32_t fast_divide(uint32_t t, int64_t packed) {
  const uint64_t m = static_cast<uint64_t>(packed) >> 8;
  const int s = static_cast<int>(packed & 255);
  const uint32_t hi = static_cast<uint32_t>((uint64_t{t} * m) >> 32);
  return (hi + t) >> s;
}

}  // namespace tgc::cfam
