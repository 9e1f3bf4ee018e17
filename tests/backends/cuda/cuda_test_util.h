// Shared helpers of the CUDA backend tests: skipping without a device, and the device
// comparisons of tests/support/device_compare.h on "cuda".
#pragma once

#include <gtest/gtest.h>

#include "backends/cuda/cuda_status.h"
#include "backends/cuda/cudnn_library.h"
#include "support/device_compare.h"

namespace tgc::cuda_test {

// GTEST_SKIP()s the test, with the reason, when no CUDA device can be used here.
#define TGC_REQUIRE_CUDA() TGC_REQUIRE_DEVICE(::tgc::cuda::cuda_status(), "a CUDA device")
// The same, and cuDNN loaded (the conv and pool thunks).
#define TGC_REQUIRE_CUDNN()                                    \
  do {                                                         \
    TGC_REQUIRE_CUDA();                                        \
    TGC_REQUIRE_DEVICE(::tgc::cuda::cudnn_status(), "cuDNN");  \
  } while (0)

// Values uniform in [-1, 1) of `dtype`, from `seed`.
inline Tensor uniform_signed(const Shape& shape, DType dtype, uint64_t seed) {
  RandomState rng(seed);
  return rng.uniform(-1.0, 1.0, shape).astype(dtype);
}

using device_test::diff_report;
using device_test::on;
using device_test::ran_on_device;

inline std::vector<Tensor> expect_cuda_matches_cpu(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                                                   const std::vector<Tensor>& args, double rtol = 1e-5,
                                                   double atol = 1e-6, std::map<std::string, std::string> cfg = {}) {
  return device_test::expect_device_matches_cpu("cuda", inputs, outputs, args, rtol, atol, std::move(cfg));
}

}  // namespace tgc::cuda_test
