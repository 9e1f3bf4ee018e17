// Arange: NumPy's length rule and fill order.
#include "ops/alloc/arange.h"

#include <cmath>
#include <type_traits>

#include <fmt/format.h>

#include "runtime/convert.h"

namespace tgc {

std::string Arange::name() const {
  return fmt::format("Arange{{start={}, stop={}, step={}, dtype={}}}", start_, stop_, step_, dtype_name(dtype_));
}

int64_t Arange::length() const {
  if (step_ == 0) throw ValueError("arange: step must not be 0", "", "give a positive or negative step");
  if (dtype_ == DType::Bool)
    throw TypeError("arange: the bool dtype is not supported", "", "use an integer or float dtype");
  if (!std::isfinite(start_) || !std::isfinite(stop_) || !std::isfinite(step_))
    throw ValueError(fmt::format("arange: bounds must be finite, got start={}, stop={}, step={}", start_, stop_, step_),
                     "", "pass finite numbers");
  const double n = std::ceil((stop_ - start_) / step_);
  if (n > 4.0e18)  // beyond int64, and far beyond any memory
    throw ValueError(fmt::format("arange: {} values are too many", n), "", "use a larger step or a smaller range");
  return n > 0 ? static_cast<int64_t>(n) : 0;
}

std::vector<Type> Arange::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.empty(), "Arange takes no inputs");
  return {Type(dtype_, {length()})};
}

std::vector<Shape> Arange::infer_shapes(const std::vector<Shape>& /*inputs*/) const { return {{length()}}; }

void Arange::perform(const std::vector<Tensor>& /*inputs*/, std::vector<Tensor>& outputs) const {
  const int64_t n = length();
  Tensor& out = ensure_output(outputs[0], dtype_, {n});
  dispatch_dtype(dtype_, [&]<typename T>() {
    // As NumPy does: the first two values are converted from double, the rest follow
    // from their difference in the output type.
    T* p = out.data<T>();
    const T first = convert_value<T>(start_);
    const T second = convert_value<T>(start_ + step_);
    if constexpr (is_float_type_v<T>) {
      const T delta = second - first;
      for (int64_t i = 0; i < n; ++i) p[i] = i == 1 ? second : static_cast<T>(first + static_cast<T>(i) * delta);
    } else {
      const int64_t delta = static_cast<int64_t>(second) - static_cast<int64_t>(first);
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(static_cast<int64_t>(first) + i * delta);
    }
  });
}

}  // namespace tgc
