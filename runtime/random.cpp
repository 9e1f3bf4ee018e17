// NumPy-compatible legacy RandomState: MT19937 with NumPy's integer seeding, its 53-bit
// doubles, the legacy polar gaussian with its cached second value, and randint's masked
// rejection sampling. Every draw order matters: the tests compare bit for bit with NumPy.
//
// Floating-point note: the gaussian must round exactly like NumPy's C code (x1*x1 + x2*x2
// as two roundings). tgc builds in ISO C++ mode without -march flags, where GCC does not
// contract a*b+c into an FMA; the NumPy-derived tests catch any build that does.
#include "runtime/random.h"

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include <fmt/format.h>

#include "runtime/error.h"

namespace tgc {

namespace {

constexpr uint32_t kMatrixA = 0x9908b0dfU;
constexpr uint32_t kUpperMask = 0x80000000U;
constexpr uint32_t kLowerMask = 0x7fffffffU;
constexpr int kShift = 397;  // MT19937's middle word offset

void check_seed(int64_t seed) {
  if (seed < 0 || seed > int64_t{0xffffffff})
    throw ValueError(fmt::format("RandomState: seed {} is out of range", seed), "",
                     "the seed must be between 0 and 2**32 - 1, as for numpy.random.RandomState");
}

void check_shape(const Shape& shape, const char* what) {
  for (int64_t d : shape)
    if (d < 0)
      throw ValueError(fmt::format("{}: negative dimensions are not allowed (shape {})", what,
                                   shape_str(shape)),
                       "", "every dimension of the requested shape must be >= 0");
}

// Smallest all-ones bit mask that covers `max` (the rejection sampler's draw mask).
uint64_t mask_covering(uint64_t max) {
  uint64_t m = max;
  for (int s = 1; s < 64; s *= 2) m |= m >> s;
  return m;
}

// NumPy draws integers narrower than 32 bits several to a 32-bit word (low bits first),
// and bools one bit at a time; 32- and 64-bit draws take whole words. One instance lives
// for one randint call, like NumPy's buffer, so leftover bits are dropped afterwards.
class BitDraws {
 public:
  BitDraws(RandomState& rs, int bits) : rs_(rs), bits_(bits) {}
  uint64_t next() {
    if (bits_ == 64) return rs_.next_uint64();
    if (bits_ == 32) return rs_.next_uint32();
    if (left_ == 0) {
      buf_ = rs_.next_uint32();
      left_ = 32 / bits_ - 1;
    } else {
      buf_ >>= bits_;
      --left_;
    }
    return buf_ & ((uint32_t{1} << bits_) - 1);
  }

 private:
  RandomState& rs_;
  int bits_;
  uint32_t buf_ = 0;
  int left_ = 0;
};

struct IntRange {
  int64_t min, max;
  int bits;  // the width NumPy draws in for this dtype
};

IntRange int_range(DType dtype) {
  switch (dtype) {
    case DType::Bool: return {0, 1, 1};
    case DType::Int8: return {-128, 127, 8};
    case DType::UInt8: return {0, 255, 8};
    case DType::Int16: return {-32768, 32767, 16};
    case DType::Int32: return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(), 32};
    case DType::Int64: return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), 64};
    case DType::Float32:
    case DType::Float64:
    case DType::Float16:
    case DType::BFloat16: break;
  }
  throw TypeError(fmt::format("randint: unsupported dtype {}", dtype_name(dtype)), "",
                  "randint makes integers or bools; draw with uniform() for floats");
}

}  // namespace

RandomState::RandomState(int64_t seed) { this->seed(seed); }

void RandomState::seed(int64_t seed) {
  check_seed(seed);
  // Knuth's initialisation, as in NumPy's mt19937_seed (the integer-seed path).
  uint32_t s = static_cast<uint32_t>(seed);
  for (int i = 0; i < kStateLen; ++i) {
    key_[i] = s;
    s = 1812433253U * (s ^ (s >> 30)) + static_cast<uint32_t>(i + 1);
  }
  pos_ = kStateLen;
  has_gauss_ = false;
  gauss_ = 0.0;
}

void RandomState::twist() {
  for (int i = 0; i < kStateLen; ++i) {
    uint32_t y = (key_[i] & kUpperMask) | (key_[(i + 1) % kStateLen] & kLowerMask);
    key_[i] = key_[(i + kShift) % kStateLen] ^ (y >> 1) ^ ((y & 1U) ? kMatrixA : 0U);
  }
  pos_ = 0;
}

uint32_t RandomState::next_uint32() {
  if (pos_ == kStateLen) twist();
  uint32_t y = key_[pos_++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680U;
  y ^= (y << 15) & 0xefc60000U;
  y ^= y >> 18;
  return y;
}

uint64_t RandomState::next_uint64() {
  uint64_t hi = next_uint32();
  uint64_t lo = next_uint32();
  return hi << 32 | lo;
}

double RandomState::next_double() {
  // 27 high bits of one word and 26 of the next make a 53-bit mantissa.
  int32_t a = static_cast<int32_t>(next_uint32() >> 5);
  int32_t b = static_cast<int32_t>(next_uint32() >> 6);
  return (a * 67108864.0 + b) / 9007199254740992.0;
}

double RandomState::next_gauss() {
  if (has_gauss_) {
    has_gauss_ = false;
    double g = gauss_;
    gauss_ = 0.0;
    return g;
  }
  double x1, x2, r2;
  do {
    x1 = 2.0 * next_double() - 1.0;
    x2 = 2.0 * next_double() - 1.0;
    r2 = x1 * x1 + x2 * x2;
  } while (r2 >= 1.0 || r2 == 0.0);
  double f = std::sqrt(-2.0 * std::log(r2) / r2);
  gauss_ = f * x1;
  has_gauss_ = true;
  return f * x2;
}

Tensor RandomState::rand(const Shape& shape) { return random_sample(shape); }

Tensor RandomState::random_sample(const Shape& shape) {
  check_shape(shape, "random_sample");
  Tensor t = Tensor::empty(DType::Float64, shape);
  double* p = t.data<double>();
  for (int64_t i = 0, n = t.numel(); i < n; ++i) p[i] = next_double();
  return t;
}

Tensor RandomState::randn(const Shape& shape) { return normal(0.0, 1.0, shape); }

Tensor RandomState::normal(double loc, double scale, const Shape& shape) {
  check_shape(shape, "normal");
  if (scale < 0)
    throw ValueError(fmt::format("normal: scale < 0 (scale={})", scale), "",
                     "scale is the standard deviation; pass a value >= 0");
  Tensor t = Tensor::empty(DType::Float64, shape);
  double* p = t.data<double>();
  for (int64_t i = 0, n = t.numel(); i < n; ++i) p[i] = loc + scale * next_gauss();
  return t;
}

Tensor RandomState::uniform(double low, double high, const Shape& shape) {
  check_shape(shape, "uniform");
  double range = high - low;
  if (!std::isfinite(range))
    throw ValueError(fmt::format("uniform: range high - low = {} is not finite (low={}, high={})",
                                 range, low, high),
                     "", "pass finite bounds whose difference fits in a float64");
  Tensor t = Tensor::empty(DType::Float64, shape);
  double* p = t.data<double>();
  for (int64_t i = 0, n = t.numel(); i < n; ++i) p[i] = low + range * next_double();
  return t;
}

Tensor RandomState::randint(int64_t low, int64_t high, const Shape& shape, DType dtype) {
  IntRange r = int_range(dtype);
  std::string dname(dtype_name(dtype));
  if (low < r.min)
    throw ValueError(fmt::format("randint: low={} is out of bounds for {}", low, dname), "",
                     fmt::format("{} holds values from {} to {}", dname, r.min, r.max));
  if (r.bits < 64 && high > r.max + 1)
    throw ValueError(fmt::format("randint: high={} is out of bounds for {}", high, dname), "",
                     fmt::format("high is exclusive; for {} it can be at most {}", dname, r.max + 1));
  if (low >= high)
    throw ValueError(fmt::format("randint: low >= high (low={}, high={})", low, high), "",
                     "randint draws from the half-open interval [low, high); pass high > low");
  check_shape(shape, "randint");

  // Draw v in [0, rng] by masked rejection and return low + v, all modulo 2**64 (as NumPy's
  // unsigned arithmetic). A 64-bit dtype whose range fits 32 bits draws 32-bit words.
  const uint64_t rng = static_cast<uint64_t>(high - 1) - static_cast<uint64_t>(low);
  const uint64_t off = static_cast<uint64_t>(low);
  const uint64_t mask = mask_covering(rng);
  const int bits = (r.bits == 64 && rng <= 0xffffffffULL) ? 32 : r.bits;
  BitDraws draws(*this, bits);
  auto draw = [&]() -> uint64_t {
    if (rng == 0) return off;
    uint64_t v;
    do v = draws.next() & mask;
    while (v > rng);
    return off + v;
  };

  Tensor t = Tensor::empty(dtype, shape);
  dispatch_dtype(dtype, [&]<typename T>() {
    T* p = t.data<T>();
    for (int64_t i = 0, n = t.numel(); i < n; ++i) {
      uint64_t v = draw();
      if constexpr (std::is_same_v<T, bool>) p[i] = v != 0;
      else p[i] = static_cast<T>(v);  // modular: the value is in [low, high) by construction
    }
  });
  return t;
}

}  // namespace tgc
