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

// What still stays on the host of a GPU (issue 19 moved the rest): a gather with more index
// arrays than the device kernel takes, and index ops on tensors of more than 8 dims.
Var nine_dims(const std::string& name) { return tensor(name, DType::Float32, std::vector<int64_t>(9, -1)); }
Var five_index_arrays(const Var& x5, const Var& i) { return x5[{i, i, i, i, i}]; }

TEST(AssertNoCpuOp, RaiseNamesEveryHostNodeWithItsReasonAndTheUsersNames) {
  if (!have_opencl()) GTEST_SKIP() << "no OpenCL device";
  ForcedBackendForTests force("opencl");
  Var x = tensor("x", DType::Float32, std::vector<int64_t>(5, -1));
  Var i = vector("i", DType::Int64);
  Var y = nine_dims("y");
  Var best = argmax(y, 0).as("best");
  Var picked = five_index_arrays(x, i).as("picked");
  Var e = exp(x).as("e");  // a device kernel: not reported
  try {
    function({x, i, y}, {best, picked, e}, {}, {.name = "f", .config = {{"assert_no_cpu_op", "raise"}}});
    FAIL() << "no error";
  } catch (const ConfigError& err) {
    const std::string what = err.what();
    EXPECT_THAT(what, HasSubstr("2 nodes of f run on the host"));
    EXPECT_THAT(what, HasSubstr("best = argmax(y"));
    EXPECT_THAT(what, HasSubstr("picked = "));
    EXPECT_THAT(what, HasSubstr("# host: a tensor of more than 8 dims"));
    EXPECT_THAT(what, HasSubstr("# host: more than 4 index arrays"));
    EXPECT_THAT(what, Not(HasSubstr("exp")));
    EXPECT_THAT(what, Not(HasSubstr("Gpu")));  // no transfer is named
    EXPECT_THAT(what, HasSubstr("hint: each line says why its node stays on the host"));
  }
}

TEST(AssertNoCpuOp, WarnReportsTheSameAndFunctionHostReasonSaysIt) {
  if (!have_opencl()) GTEST_SKIP() << "no OpenCL device";
  ForcedBackendForTests force("opencl");
  Var y = nine_dims("y");
  Function f = function({y}, {argmax(y, 0).as("best"), exp(y)}, {}, {.name = "f", .config = {{"assert_no_cpu_op", "warn"}}});
  ASSERT_EQ(f.optimizer_warnings().size(), 1u);
  EXPECT_THAT(f.optimizer_warnings()[0], HasSubstr("best = argmax(y"));
  EXPECT_THAT(f.optimizer_warnings()[0], HasSubstr("# host: a tensor of more than 8 dims"));
  int host = 0;
  for (Node* n : f.graph().toposort()) {
    const std::string reason = f.host_reason(*n);
    if (n->placement() == DeviceKind::Host && !n->op().is_transfer()) {
      ++host;
      EXPECT_EQ(reason, "a tensor of more than 8 dims");
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
  // So does its gradient, the shape-driven ops (ReduceCount, SumToLike) included.
  EXPECT_NO_THROW(function({z, y}, {loss, grad(loss, z)}, {}, {.config = {{"assert_no_cpu_op", "raise"}}}));
}

}  // namespace
}  // namespace tgc
