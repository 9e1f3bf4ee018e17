// The host's 16-bit float types, float16 (IEEE binary16) and bfloat16 (float32's exponent,
// 8 significant bits), as storage types that compute in float: a value converts to float
// implicitly, so `a + b` on two halves is float arithmetic and assigning the result back
// rounds once (to nearest, ties to even), which is the rule every backend keeps (design:
// half types compute in float32 and round on store). From double they round directly,
// never through float, so a reference result computed in double is rounded only once.
//
// float16 uses the compiler's _Float16 (GCC 12+, Clang) for its conversions; bfloat16's
// conversion is float32's bit pattern rounded to its top 16 bits.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

namespace detail {

// Rounds the float `f` to bfloat16 bits, to nearest with ties to even; NaN stays a quiet NaN.
constexpr uint16_t bfloat16_bits_of(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);
  const uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>((u + rounding) >> 16);
}

// Rounds the double `d` to bfloat16 bits in one step. A double within float's normal range
// is rounded at bfloat16's last significant bit in double's own bit pattern (the result is a
// float exactly); elsewhere (zero, subnormal, overflow, inf, NaN) rounding through float
// loses nothing that matters, since a double tiny enough to be below float's normal range
// rounds the same way, and one beyond it is inf either way.
constexpr uint16_t bfloat16_bits_of(double d) {
  const double a = d < 0 ? -d : d;
  if (!(a >= 0x1p-126 && a < 0x1p+128)) return bfloat16_bits_of(static_cast<float>(d));
  const uint64_t u = std::bit_cast<uint64_t>(d);
  constexpr int kDrop = 52 - 7;  // double's fraction bits less bfloat16's
  const uint64_t rounding = ((uint64_t{1} << (kDrop - 1)) - 1) + ((u >> kDrop) & 1u);
  const uint64_t r = (u + rounding) & ~((uint64_t{1} << kDrop) - 1);
  return bfloat16_bits_of(static_cast<float>(std::bit_cast<double>(r)));  // exact, or inf
}

}  // namespace detail

struct float16_t {
  uint16_t bits = 0;

  constexpr float16_t() = default;
  template <typename U>
    requires std::is_arithmetic_v<U>
  float16_t(U v) {  // NOLINT(google-explicit-constructor): a number converts like float does
    _Float16 h;
    if constexpr (std::is_same_v<U, double> || std::is_same_v<U, float>)
      h = static_cast<_Float16>(v);
    else
      h = static_cast<_Float16>(static_cast<double>(v));
    std::memcpy(&bits, &h, sizeof bits);
  }
  operator float() const {  // NOLINT(google-explicit-constructor)
    _Float16 h;
    std::memcpy(&h, &bits, sizeof bits);
    return static_cast<float>(h);
  }
  static constexpr float16_t from_bits(uint16_t b) {
    float16_t h;
    h.bits = b;
    return h;
  }
};

struct bfloat16_t {
  uint16_t bits = 0;

  constexpr bfloat16_t() = default;
  template <typename U>
    requires std::is_arithmetic_v<U>
  constexpr bfloat16_t(U v) {  // NOLINT(google-explicit-constructor)
    if constexpr (std::is_same_v<U, float>)
      bits = detail::bfloat16_bits_of(v);
    else
      bits = detail::bfloat16_bits_of(static_cast<double>(v));
  }
  constexpr operator float() const {  // NOLINT(google-explicit-constructor)
    return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
  }
  static constexpr bfloat16_t from_bits(uint16_t b) {
    bfloat16_t h;
    h.bits = b;
    return h;
  }
};

// Whether T is one of the two half types.
template <typename T>
inline constexpr bool is_half_type_v =
    std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>;
// Whether T is a floating-point element type: float, double or a half type. Templated host
// code asks this where it would ask std::is_floating_point.
template <typename T>
inline constexpr bool is_float_type_v = std::is_floating_point_v<T> || is_half_type_v<T>;
// The type arithmetic on T is carried out in on the host: float for the half types, T
// otherwise.
template <typename T>
using compute_type_t = std::conditional_t<is_half_type_v<T>, float, T>;

TGC_API_END
}  // namespace tgc

// numeric_limits for the half types, as NumPy's finfo(float16) and ml_dtypes' finfo(bfloat16).
template <>
class std::numeric_limits<tgc::float16_t> {
 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr int digits = 11;
  static constexpr int max_exponent = 16;
  static constexpr int min_exponent = -13;
  static tgc::float16_t min() { return tgc::float16_t::from_bits(0x0400); }  // 2^-14
  static tgc::float16_t max() { return tgc::float16_t::from_bits(0x7bff); }  // 65504
  static tgc::float16_t lowest() { return tgc::float16_t::from_bits(0xfbff); }
  static tgc::float16_t epsilon() { return tgc::float16_t::from_bits(0x1400); }  // 2^-10
  static tgc::float16_t infinity() { return tgc::float16_t::from_bits(0x7c00); }
  static tgc::float16_t quiet_NaN() { return tgc::float16_t::from_bits(0x7e00); }
  static tgc::float16_t denorm_min() { return tgc::float16_t::from_bits(0x0001); }
};

template <>
class std::numeric_limits<tgc::bfloat16_t> {
 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr int digits = 8;
  static constexpr int max_exponent = 128;
  static constexpr int min_exponent = -125;
  static constexpr tgc::bfloat16_t min() { return tgc::bfloat16_t::from_bits(0x0080); }
  static constexpr tgc::bfloat16_t max() { return tgc::bfloat16_t::from_bits(0x7f7f); }
  static constexpr tgc::bfloat16_t lowest() { return tgc::bfloat16_t::from_bits(0xff7f); }
  static constexpr tgc::bfloat16_t epsilon() { return tgc::bfloat16_t::from_bits(0x3c00); }  // 2^-7
  static constexpr tgc::bfloat16_t infinity() { return tgc::bfloat16_t::from_bits(0x7f80); }
  static constexpr tgc::bfloat16_t quiet_NaN() { return tgc::bfloat16_t::from_bits(0x7fc0); }
  static constexpr tgc::bfloat16_t denorm_min() { return tgc::bfloat16_t::from_bits(0x0001); }
};
