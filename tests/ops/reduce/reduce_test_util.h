// Helpers of the reduce tests: running an op's perform, loading NumPy's expected arrays,
// and rebuilding a tensor's values in other memory layouts.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops/core/op.h"
#include "runtime/npy.h"
#include "runtime/tensor.h"

namespace tgc::reduce_test {

inline Tensor run(const Op& op, const std::vector<Tensor>& inputs) {
  std::vector<Tensor> outputs(op.num_outputs());
  op.perform(inputs, outputs);
  return outputs[0];
}

inline Tensor npy(const std::string& name) {
  return read_npy(std::string(TGC_TEST_DATA_DIR) + "/reduce/" + name + ".npy");
}

// A view of t reversed along `axis` (negative stride).
inline Tensor flip(const Tensor& t, int axis) {
  Strides st = t.strides();
  int64_t offset = t.offset() + (t.shape()[axis] - 1) * st[axis];
  st[axis] = -st[axis];
  return t.view(t.shape(), st, offset);
}
// The same values stored column-major (a transposed, non-contiguous view).
inline Tensor fortran_layout(const Tensor& t) { return t.transpose().copy().transpose(); }
// The same values read through a negative stride along `axis`.
inline Tensor reversed_layout(const Tensor& t, int axis) { return flip(flip(t, axis).copy(), axis); }

inline void expect_same(const Tensor& got, const Tensor& want, double rtol = 1e-12) {
  ASSERT_EQ(got.dtype(), want.dtype()) << dtype_name(got.dtype()) << " vs " << dtype_name(want.dtype());
  ASSERT_EQ(got.shape(), want.shape()) << shape_str(got.shape()) << " vs " << shape_str(want.shape());
  if (is_float(want.dtype())) {
    EXPECT_TRUE(tensors_allclose(got, want, rtol, 1e-12)) << got.str() << "\nexpected\n" << want.str();
  } else {
    // Exact, and without a detour through double (int64 values beyond 2^53).
    EXPECT_EQ(got.to_vector<int64_t>(), want.to_vector<int64_t>()) << got.str() << "\nexpected\n" << want.str();
  }
}

}  // namespace tgc::reduce_test
