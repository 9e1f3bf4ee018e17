// Helpers shared by the op-family tests: running an op's reference perform, reading the
// NumPy-derived arrays under tests/data/<family>/, rebuilding a tensor's values in other
// memory layouts, and comparing results with messages that point at the caller's line.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <source_location>
#include <string>
#include <vector>

#include "ops/core/op.h"
#include "runtime/npy.h"
#include "runtime/tensor.h"

#ifndef TGC_TEST_DATA_DIR
#error "TGC_TEST_DATA_DIR must name tests/data (tgc_add_tests defines it)"
#endif

namespace tgc::test {

// Every output of op.perform(inputs), each starting from an empty tensor.
inline std::vector<Tensor> run_op_all(const Op& op, const std::vector<Tensor>& inputs) {
  std::vector<Tensor> outputs(op.num_outputs());
  op.perform(inputs, outputs);
  return outputs;
}

// The first output of op.perform(inputs).
inline Tensor run_op(const Op& op, const std::vector<Tensor>& inputs) { return run_op_all(op, inputs).at(0); }

// tests/data/<family>/<name>.npy, as written by scripts/test_data/*.py.
inline Tensor load_npy(const std::string& family, const std::string& name) {
  return read_npy(std::string(TGC_TEST_DATA_DIR) + "/" + family + "/" + name + ".npy");
}

// A float64 tensor 0, 1, 2, ... of `shape`, converted to `dtype`.
inline Tensor iota(const Shape& shape, DType dtype = DType::Float64) {
  std::vector<double> v(static_cast<size_t>(shape_numel(shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  return Tensor::from_vector(v, shape).astype(dtype);
}

// t[start:stop:step] along `axis`, as a view (NumPy's basic slicing, step != 0, bounds
// already inside the axis).
inline Tensor slice_view(const Tensor& t, int axis, int64_t start, int64_t stop, int64_t step = 1) {
  Shape shape = t.shape();
  Strides strides = t.strides();
  const int64_t n = step > 0 ? (stop - start + step - 1) / step : (start - stop - step - 1) / -step;
  shape[axis] = std::max<int64_t>(n, 0);
  const int64_t offset = t.offset() + start * strides[axis];
  strides[axis] *= step;
  return t.view(shape, strides, offset);
}

// A view of t walked backwards along `axis` (a negative stride); an empty axis keeps t's offset.
inline Tensor flip_view(const Tensor& t, int axis) {
  Strides strides = t.strides();
  const int64_t n = t.shape()[axis];
  const int64_t offset = t.offset() + (n > 0 ? (n - 1) * strides[axis] : 0);
  strides[axis] = -strides[axis];
  return t.view(t.shape(), strides, offset);
}

// The same values stored column-major: a non-contiguous view (for rank >= 2) equal to t.
inline Tensor fortran_layout(const Tensor& t) { return t.transpose().copy().transpose(); }

// The same values read through a negative stride along `axis`: the storage holds them
// backwards along that axis.
inline Tensor reversed_layout(const Tensor& t, int axis) { return flip_view(flip_view(t, axis).copy(), axis); }

// Whether `got` has `want`'s dtype and shape and the same values: integers and bool exactly
// (compared as int64, so int64 values beyond 2^53 count), floats equal or, where `want` is
// finite, within atol + rtol * |want|; NaN matches NaN and infinities must match.
inline ::testing::AssertionResult same_values(const Tensor& got, const Tensor& want, double rtol = 0.0,
                                              double atol = 0.0) {
  if (got.dtype() != want.dtype())
    return ::testing::AssertionFailure() << "dtype " << dtype_name(got.dtype()) << ", expected "
                                         << dtype_name(want.dtype());
  if (got.shape() != want.shape())
    return ::testing::AssertionFailure() << "shape " << shape_str(got.shape()) << ", expected "
                                         << shape_str(want.shape());
  if (is_float(want.dtype())) {
    auto g = got.to_vector<double>(), w = want.to_vector<double>();
    for (size_t i = 0; i < g.size(); ++i) {
      const bool ok = (std::isnan(g[i]) && std::isnan(w[i])) || g[i] == w[i] ||
                      (std::isfinite(w[i]) && std::fabs(g[i] - w[i]) <= atol + rtol * std::fabs(w[i]));
      if (!ok)
        return ::testing::AssertionFailure() << "element " << i << " is " << g[i] << ", expected " << w[i]
                                             << " (rtol " << rtol << ", atol " << atol << ")";
    }
  } else {
    auto g = got.to_vector<int64_t>(), w = want.to_vector<int64_t>();
    for (size_t i = 0; i < g.size(); ++i)
      if (g[i] != w[i]) return ::testing::AssertionFailure() << "element " << i << " is " << g[i] << ", expected " << w[i];
  }
  return ::testing::AssertionSuccess();
}

// Expects same_values(got, want, rtol, atol); exact by default.
inline void expect_same(const Tensor& got, const Tensor& want, double rtol = 0.0, double atol = 0.0,
                        std::source_location at = std::source_location::current()) {
  if (::testing::AssertionResult r = same_values(got, want, rtol, atol); !r)
    ADD_FAILURE_AT(at.file_name(), at.line()) << r.message() << "\n" << got.str() << "\nexpected\n" << want.str();
}

// Expects the shapes to agree and the values to be close (tensors_allclose: NaN matches
// NaN); the dtypes may differ.
inline void expect_close(const Tensor& got, const Tensor& want, double rtol = 1e-12, double atol = 1e-12,
                         std::source_location at = std::source_location::current()) {
  if (got.shape() != want.shape())
    ADD_FAILURE_AT(at.file_name(), at.line()) << "shape " << shape_str(got.shape()) << ", expected "
                                              << shape_str(want.shape());
  else if (!tensors_allclose(got, want, rtol, atol))
    ADD_FAILURE_AT(at.file_name(), at.line()) << got.str() << "\nexpected\n" << want.str();
}

}  // namespace tgc::test
