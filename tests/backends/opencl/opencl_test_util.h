// Shared helpers of the OpenCL backend tests: skipping without a usable device and compiling
// one graph for device=opencl and device=cpu to compare.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include <tgc/tgc.h>

#include "backends/opencl/opencl_status.h"

namespace tgc::opencl_test {

// GTEST_SKIP()s the test, with the reason, when no OpenCL device can be used here.
#define TGC_REQUIRE_OPENCL()                                                                     \
  do {                                                                                           \
    if (!::tgc::opencl::opencl_status().available)                                               \
      GTEST_SKIP() << "needs an OpenCL device: " << ::tgc::opencl::opencl_status().reason;       \
  } while (0)

inline FunctionOptions on(const std::string& device, std::map<std::string, std::string> extra = {}) {
  FunctionOptions o;
  o.config = std::move(extra);
  o.config["device"] = device;
  return o;
}

// Compiles `outputs` over `inputs` for opencl and cpu, runs both on `args` and expects the
// results close; returns the opencl results.
inline std::vector<Tensor> expect_opencl_matches_cpu(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                                                     const std::vector<Tensor>& args, double rtol = 1e-5,
                                                     double atol = 1e-6, std::map<std::string, std::string> cfg = {}) {
  Function fc = function(inputs, outputs, {}, on("cpu", cfg));
  Function fo = function(inputs, outputs, {}, on("opencl", cfg));
  bool transferred = false;
  for (const std::string& n : fo.toposort()) transferred = transferred || n.rfind("DeviceToHost", 0) == 0;
  EXPECT_TRUE(transferred) << "nothing was placed on the device";
  std::vector<Tensor> want = fc(args), got = fo(args);
  EXPECT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size() && k < want.size(); ++k) {
    EXPECT_TRUE(got[k].on_host()) << "output " << k << " not returned to the host";
    EXPECT_EQ(got[k].dtype(), want[k].dtype()) << "output " << k;
    EXPECT_TRUE(tensors_allclose(got[k], want[k], rtol, atol)) << "output " << k << ": " << got[k].str() << " vs "
                                                               << want[k].str();
  }
  return got;
}

}  // namespace tgc::opencl_test
