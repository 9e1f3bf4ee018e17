// The GPU API the layer's device tests run on: each test source is built once per API
// (TGC_TEST_GPU_API "cuda", label gpu; "opencl", label opencl: PoCL in CI), and a test skips,
// with the reason, where that API has no usable device.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "backends/gpu/gpu_device.h"
#include "support/device_compare.h"
#if TGC_TEST_GPU_CUDA
#include "backends/cuda/cuda_device.h"
#include "backends/cuda/cuda_status.h"
#else
#include "backends/opencl/opencl_device.h"
#include "backends/opencl/opencl_status.h"
#endif

namespace tgc::gpu_test {

// "cuda" or "opencl": the `device` option of the functions the tests compile.
inline std::string api() { return TGC_TEST_GPU_CUDA ? "cuda" : "opencl"; }

// "" when the API has a usable device here, else why not.
inline std::string unavailable() {
#if TGC_TEST_GPU_CUDA
  return cuda::cuda_status().available ? "" : cuda::cuda_status().reason;
#else
  return opencl::opencl_status().available ? "" : opencl::opencl_status().reason;
#endif
}

// The API's first device (call after TGC_REQUIRE_GPU).
inline gpu::GpuDevice& device() {
#if TGC_TEST_GPU_CUDA
  return cuda::cuda_device(0);
#else
  return opencl::opencl_device(-1, 0);
#endif
}

#define TGC_REQUIRE_GPU()                                                                      \
  do {                                                                                         \
    if (const std::string why = ::tgc::gpu_test::unavailable(); !why.empty())                  \
      GTEST_SKIP() << "needs a " << ::tgc::gpu_test::api() << " device: " << why;               \
  } while (0)

inline std::vector<Tensor> expect_matches_cpu(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                                              const std::vector<Tensor>& args, double rtol = 1e-5, double atol = 1e-6,
                                              std::map<std::string, std::string> cfg = {}) {
  return device_test::expect_device_matches_cpu(api(), inputs, outputs, args, rtol, atol, std::move(cfg));
}

}  // namespace tgc::gpu_test
