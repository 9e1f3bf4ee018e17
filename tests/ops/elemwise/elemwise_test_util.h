// Helpers for the elemwise tests: running an Elemwise on host tensors and comparing results
// element by element with messages that name the first mismatch.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ops/elemwise/elemwise.h"
#include "runtime/tensor.h"

namespace tgc::testing {

// Applies Elemwise{kind} to `inputs` through perform(); floatX float32 unless given.
inline Tensor run_elemwise(ScalarOpKind kind, const std::vector<Tensor>& inputs,
                           std::optional<DType> cast_to = std::nullopt,
                           DType floatx = DType::Float32) {
  Elemwise op(kind, cast_to, floatx);
  std::vector<Tensor> out(1);
  op.perform(inputs, out);
  return out[0];
}

// Whether `actual` has `expected`'s dtype and shape and the same values: integers and bool
// exactly (compared as int64), floats within rtol (NaN matches NaN, infinities must match).
inline ::testing::AssertionResult same_values(const Tensor& actual, const Tensor& expected,
                                              double rtol = 0.0) {
  if (actual.dtype() != expected.dtype())
    return ::testing::AssertionFailure() << "dtype " << dtype_name(actual.dtype()) << ", expected "
                                         << dtype_name(expected.dtype());
  if (actual.shape() != expected.shape())
    return ::testing::AssertionFailure()
           << "shape " << shape_str(actual.shape()) << ", expected " << shape_str(expected.shape());
  if (is_float(expected.dtype())) {
    auto a = actual.to_vector<double>(), e = expected.to_vector<double>();
    for (size_t i = 0; i < a.size(); ++i) {
      bool ok = (std::isnan(a[i]) && std::isnan(e[i])) || a[i] == e[i] ||
                (std::isfinite(e[i]) && std::fabs(a[i] - e[i]) <= rtol * std::fabs(e[i]));
      if (!ok)
        return ::testing::AssertionFailure() << "element " << i << " is " << a[i] << ", expected "
                                             << e[i] << " (rtol " << rtol << ")";
    }
  } else {
    auto a = actual.to_vector<int64_t>(), e = expected.to_vector<int64_t>();
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i] != e[i])
        return ::testing::AssertionFailure()
               << "element " << i << " is " << a[i] << ", expected " << e[i];
  }
  return ::testing::AssertionSuccess();
}

}  // namespace tgc::testing
