// RandomState: NumPy's legacy numpy.random.RandomState(seed) in C++, bit for bit (MT19937,
// legacy Box-Muller gaussians, masked-rejection randint), so tutorial data can be reproduced.
#pragma once

#include <array>
#include <cstdint>

#include "runtime/dtype.h"
#include "runtime/export.h"
#include "runtime/shape.h"
#include "runtime/tensor.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

class RandomState {
 public:
  // Seeds like numpy.random.RandomState(seed); seed must be in [0, 2**32 - 1] (ValueError).
  explicit RandomState(int64_t seed);

  // Re-seeds and forgets a cached gaussian, like RandomState.seed(seed).
  void seed(int64_t seed);

  // Float64 tensors of `shape`, filled in C order (like NumPy; negative dims: ValueError).
  Tensor rand(const Shape& shape);           // uniform on [0, 1)
  Tensor random_sample(const Shape& shape);  // same as rand
  Tensor randn(const Shape& shape);          // standard normal (legacy polar method)
  Tensor normal(double loc, double scale, const Shape& shape);  // scale >= 0
  Tensor uniform(double low, double high, const Shape& shape);  // low + (high-low)*U[0,1)
  // Integers on [low, high), as RandomState.randint(low, high, size, dtype). dtype may be
  // any integer dtype or bool; [low, high) must fit it (ValueError otherwise).
  Tensor randint(int64_t low, int64_t high, const Shape& shape, DType dtype = DType::Int64);

  // The scalar draws everything above is built from; public so other generators
  // (shuffles, permutations) continue the same stream.
  uint32_t next_uint32();
  uint64_t next_uint64();  // two 32-bit draws, the first one in the high half
  double next_double();    // 53-bit uniform on [0, 1)
  double next_gauss();     // one standard normal; every second call uses the cached value

 private:
  static constexpr int kStateLen = 624;
  void twist();
  std::array<uint32_t, kStateLen> key_{};
  int pos_ = kStateLen;
  bool has_gauss_ = false;
  double gauss_ = 0.0;
};

TGC_API_END
}  // namespace tgc
