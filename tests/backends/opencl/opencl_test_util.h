// Shared helpers of the OpenCL backend tests: skipping without a usable device, and the
// device comparisons of tests/support/device_compare.h on "opencl".
#pragma once

#include <gtest/gtest.h>

#include "backends/opencl/opencl_status.h"
#include "support/device_compare.h"

namespace tgc::opencl_test {

// GTEST_SKIP()s the test, with the reason, when no OpenCL device can be used here.
#define TGC_REQUIRE_OPENCL() TGC_REQUIRE_DEVICE(::tgc::opencl::opencl_status(), "an OpenCL device")

using device_test::on;

inline std::vector<Tensor> expect_opencl_matches_cpu(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                                                     const std::vector<Tensor>& args, double rtol = 1e-5,
                                                     double atol = 1e-6, std::map<std::string, std::string> cfg = {}) {
  return device_test::expect_device_matches_cpu("opencl", inputs, outputs, args, rtol, atol, std::move(cfg));
}

}  // namespace tgc::opencl_test
