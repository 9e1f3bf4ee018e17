// Helpers of the blas tests: running an op's perform, loading NumPy's arrays, and slicing
// or transposing tgc tensors into the views the expected products were computed from.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "ops/core/op.h"
#include "runtime/npy.h"
#include "runtime/tensor.h"

namespace tgc::blas_test {

inline Tensor run(const Op& op, const std::vector<Tensor>& inputs) {
  std::vector<Tensor> outputs(op.num_outputs());
  op.perform(inputs, outputs);
  return outputs[0];
}

inline Tensor npy(const std::string& name) {
  return read_npy(std::string(TGC_TEST_DATA_DIR) + "/blas/" + name + ".npy");
}

// t[start:stop:step] along `axis`, as a view (NumPy's basic slicing, step != 0).
inline Tensor slice(const Tensor& t, int axis, int64_t start, int64_t stop, int64_t step = 1) {
  Shape shape = t.shape();
  Strides strides = t.strides();
  int64_t n = step > 0 ? (stop - start + step - 1) / step : (start - stop - step - 1) / -step;
  shape[axis] = std::max<int64_t>(n, 0);
  int64_t offset = t.offset() + start * strides[axis];
  strides[axis] *= step;
  return t.view(shape, strides, offset);
}

inline void expect_close(const Tensor& got, const Tensor& want, double rtol = 1e-12, double atol = 1e-12) {
  ASSERT_EQ(got.shape(), want.shape()) << shape_str(got.shape()) << " vs " << shape_str(want.shape());
  EXPECT_TRUE(tensors_allclose(got, want, rtol, atol)) << got.str() << "\nexpected\n" << want.str();
}

}  // namespace tgc::blas_test
