// The device backend function() gets (frontend/api/backend_choice.cpp) where CUDA is built but
// cannot be used here (no driver or GPU, as in CI): a function made for its graph only
// (GraphsOnlyScope, tgc show) is placed by the CUDA rules over a device described but not
// opened; a function to run, and a device for tensors even inside that scope, still say
// clearly that the device is not available.
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "backends/cuda/cuda_backend.h"
#include "frontend/api/backend_choice.h"
#include "frontend/api/graphs_only.h"
#include "ops/core/graph.h"
#include "support/catch_error.h"

namespace tgc {
namespace {

TEST(BackendChoice, AGraphsOnlyCudaFunctionIsPlacedWithoutAGpu) {
  if (cuda_available()) GTEST_SKIP() << "CUDA works here: device=cuda opens the device";
  Var x = vector("x", DType::Float32);
  FunctionOptions opts;
  opts.config["device"] = "cuda";
  const std::string refused = test::catch_error<Error>([&] { function({x}, {exp(x)}, {}, opts); }).what();
  if (refused.find("no CUDA backend") != std::string::npos) GTEST_SKIP() << refused;
  EXPECT_NE(refused.find("is not available"), std::string::npos) << refused;

  GraphsOnlyScope graphs_only;
  Function f = function({x}, {exp(x)}, {}, opts);
  bool on_device = false;
  for (const Node* n : f.graph().toposort()) on_device = on_device || n->placement() == DeviceKind::Cuda;
  EXPECT_TRUE(on_device) << f.graph().str();
  // Tensors need the device itself: not the unopened one, not even inside the scope.
  const std::string no_device = test::catch_error<Error>([] { device_by_name("cuda"); }).what();
  EXPECT_NE(no_device.find("is not available"), std::string::npos) << no_device;
}

}  // namespace
}  // namespace tgc
