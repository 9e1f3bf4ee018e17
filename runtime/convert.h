// Value conversion between element types with defined results where C++ would have
// undefined behaviour: NaN becomes 0 and out-of-range floats saturate when cast to integers.
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

#include "runtime/half_types.h"

namespace tgc {

template <typename To, typename From>
To convert_value(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (is_half_type_v<From>) {
    return convert_value<To>(static_cast<float>(v));  // exact; then float's rules
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    if (std::isnan(v)) return To(0);
    constexpr double lo = static_cast<double>(std::numeric_limits<To>::min());
    constexpr double hi = static_cast<double>(std::numeric_limits<To>::max());
    double d = static_cast<double>(v);
    if (d <= lo) return std::numeric_limits<To>::min();
    if (d >= hi) return std::numeric_limits<To>::max();
    return static_cast<To>(d);
  } else {
    return static_cast<To>(v);  // integer narrowing wraps (C++20), as NumPy's astype does
  }
}

}  // namespace tgc
