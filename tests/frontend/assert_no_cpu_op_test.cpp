// assert_no_cpu_op on a GPU device: raise names every node left on the host, in the user's
// names, each with the placement's reason; warn reports the same text; the function's own
// transfers (its host inputs and outputs) are never reported. Runs on OpenCL (PoCL needs no
// GPU); skipped in a build or on a machine without an OpenCL device.
#include <tgc/tgc.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/backend_registry.h"
#include "backends/opencl/opencl_backend.h"
#include "ops/core/graph.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

bool have_opencl() {
  for (const std::string& b : built_backends())
    if (b == "opencl") return true;
  return false;
}

TEST(AssertNoCpuOp, RaiseNamesEveryHostNodeWithItsReasonAndTheUsersNames) {
  if (!have_opencl()) GTEST_SKIP() << "no OpenCL device";
  ForcedBackendForTests force("opencl");
  Var x = matrix("x", DType::Float32);
  Var best = argmax(x, 1).as("best");
  Var worst = argmin(x, 0).as("worst");
  Var e = exp(x).as("e");  // a device kernel: not reported
  try {
    function({x}, {best, worst, e}, {}, {.name = "f", .config = {{"assert_no_cpu_op", "raise"}}});
    FAIL() << "no error";
  } catch (const ConfigError& err) {
    const std::string what = err.what();
    EXPECT_THAT(what, HasSubstr("2 nodes of f run on the host"));
    EXPECT_THAT(what, HasSubstr("best = argmax(x"));
    EXPECT_THAT(what, HasSubstr("worst = argmin(x"));
    EXPECT_THAT(what, HasSubstr("# host: no device implementation of Argmax"));
    EXPECT_THAT(what, HasSubstr("# host: no device implementation of Argmin"));
    EXPECT_THAT(what, Not(HasSubstr("exp")));
    EXPECT_THAT(what, Not(HasSubstr("Gpu")));  // no transfer is named
  }
}

TEST(AssertNoCpuOp, WarnReportsTheSameAndFunctionHostReasonSaysIt) {
  if (!have_opencl()) GTEST_SKIP() << "no OpenCL device";
  ForcedBackendForTests force("opencl");
  Var x = matrix("x", DType::Float32);
  Function f = function({x}, {argmax(x, 1).as("best"), exp(x)}, {}, {.name = "f", .config = {{"assert_no_cpu_op", "warn"}}});
  ASSERT_EQ(f.optimizer_warnings().size(), 1u);
  EXPECT_THAT(f.optimizer_warnings()[0], HasSubstr("best = argmax(x"));
  EXPECT_THAT(f.optimizer_warnings()[0], HasSubstr("# host: no device implementation of Argmax"));
  int host = 0;
  for (Node* n : f.graph().toposort()) {
    const std::string reason = f.host_reason(*n);
    if (n->placement() == DeviceKind::Host && !n->op().is_transfer()) {
      ++host;
      EXPECT_EQ(reason, "no device implementation of Argmax");
    } else {
      EXPECT_EQ(reason, "") << n->op().name();
    }
  }
  EXPECT_EQ(host, 1);
}

TEST(AssertNoCpuOp, AFunctionWhoseOpsAllRunOnTheDevicePassesRaise) {
  if (!have_opencl()) GTEST_SKIP() << "no OpenCL device";
  ForcedBackendForTests force("opencl");
  Var z = matrix("z", DType::Float32), y = matrix("y", DType::Float32);
  // Only its inputs' and outputs' transfers cross: the softmax family runs on the device
  // (decompose_for_fusion).
  Var loss = -mean(sum(y * log_softmax(z), 1));
  EXPECT_NO_THROW(function({z, y}, {loss, softmax(z), logsumexp(z, {1})}, {}, {.config = {{"assert_no_cpu_op", "raise"}}}));
  // The gradient adds only the shape-driven ops OpenCL does not run yet (CUDA does:
  // docs/gpu.md); the softmax's own gradient is device kernels.
  Function f = function({z, y}, {loss, grad(loss, z)}, {}, {.config = {{"assert_no_cpu_op", "ignore"}}});
  for (Node* n : f.graph().toposort())
    if (n->placement() == DeviceKind::Host && !n->op().is_transfer())
      EXPECT_TRUE(n->op().op_class() == "ReduceCount" || n->op().op_class() == "SumToLike") << n->describe();
}

}  // namespace
}  // namespace tgc
