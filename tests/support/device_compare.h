// Shared helpers of the GPU backend tests (tests/backends/{gpu,cuda,opencl}): compiling one
// graph for a device and for the cpu, and comparing the results with informative messages.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <tgc/tgc.h>

// GTEST_SKIP()s the test, with the reason, when `status` (cuda::cuda_status(),
// opencl::opencl_status(): .available, .reason) finds no usable device; `what` names it.
#define TGC_REQUIRE_DEVICE(status, what)                                      \
  do {                                                                        \
    if (!(status).available) GTEST_SKIP() << "needs " what ": " << (status).reason; \
  } while (0)

namespace tgc::device_test {

inline FunctionOptions on(const std::string& device, std::map<std::string, std::string> extra = {}) {
  FunctionOptions o;
  o.config = std::move(extra);
  o.config["device"] = device;
  return o;
}

// Whether the compiled function moved work to the device (a DeviceToHost brings it back).
inline bool ran_on_device(const Function& f) {
  for (const std::string& n : f.toposort())
    if (n.rfind("DeviceToHost", 0) == 0) return true;
  return false;
}

// The largest |a-b| and where, for failure messages.
inline std::string diff_report(const Tensor& got, const Tensor& want, const std::string& device = "device") {
  if (got.shape() != want.shape()) return "shapes " + shape_str(got.shape()) + " vs " + shape_str(want.shape());
  std::vector<double> g = got.to_vector<double>(), w = want.to_vector<double>();
  double worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    double d = std::abs(g[i] - w[i]);
    if (d > worst || (std::isnan(g[i]) != std::isnan(w[i]))) worst = d, at = i;
  }
  if (g.empty()) return "empty";
  return "largest difference " + std::to_string(worst) + " at flat index " + std::to_string(at) + " (" + device + " " +
         std::to_string(g[at]) + ", cpu " + std::to_string(w[at]) + ")";
}

// Compiles `outputs` over `inputs` for `device` ("cuda", "opencl") and cpu, runs both on
// `args` and expects the results close (rtol/atol as tensors_allclose); returns the device's.
inline std::vector<Tensor> expect_device_matches_cpu(const std::string& device, const std::vector<Var>& inputs,
                                                     const std::vector<Var>& outputs, const std::vector<Tensor>& args,
                                                     double rtol = 1e-5, double atol = 1e-6,
                                                     std::map<std::string, std::string> cfg = {}) {
  Function fc = function(inputs, outputs, {}, on("cpu", cfg));
  Function fd = function(inputs, outputs, {}, on(device, cfg));
  EXPECT_TRUE(ran_on_device(fd)) << "nothing was placed on the device";
  std::vector<Tensor> want = fc(args), got = fd(args);
  EXPECT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size() && k < want.size(); ++k) {
    EXPECT_TRUE(got[k].on_host()) << "output " << k << " not returned to the host";
    EXPECT_EQ(got[k].dtype(), want[k].dtype()) << "output " << k;
    EXPECT_TRUE(tensors_allclose(got[k], want[k], rtol, atol))
        << "output " << k << ": " << diff_report(got[k], want[k], device);
  }
  return got;
}

}  // namespace tgc::device_test
