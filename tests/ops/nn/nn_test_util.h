// Helpers of the nn tests: running an op's perform, loading NumPy's arrays, other layouts.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops/core/op.h"
#include "runtime/npy.h"
#include "runtime/tensor.h"

namespace tgc::nn_test {

inline Tensor run(const Op& op, const std::vector<Tensor>& inputs) {
  std::vector<Tensor> outputs(op.num_outputs());
  op.perform(inputs, outputs);
  return outputs[0];
}

inline Tensor npy(const std::string& name) {
  return read_npy(std::string(TGC_TEST_DATA_DIR) + "/nn/" + name + ".npy");
}

// The same values stored column-major, and read through a negative stride along axis 1.
inline Tensor fortran_layout(const Tensor& t) { return t.transpose().copy().transpose(); }
inline Tensor reversed_cols(const Tensor& t) {
  auto flip = [](const Tensor& x) {
    return x.view(x.shape(), {x.strides()[0], -x.strides()[1]}, x.offset() + (x.shape()[1] - 1) * x.strides()[1]);
  };
  return flip(flip(t).copy());
}

inline void expect_close(const Tensor& got, const Tensor& want, double rtol = 1e-12, double atol = 1e-12) {
  ASSERT_EQ(got.shape(), want.shape()) << shape_str(got.shape()) << " vs " << shape_str(want.shape());
  EXPECT_TRUE(tensors_allclose(got, want, rtol, atol)) << got.str() << "\nexpected\n" << want.str();
}

}  // namespace tgc::nn_test
