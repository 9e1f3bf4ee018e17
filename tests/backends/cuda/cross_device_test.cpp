// A float32 shared variable read by a cuda function and an opencl function in one process
// (label gpu): each call moves it to its own device, through the host, and never hands one
// device's address to the other (the fault opencl_bench met).
#include <gtest/gtest.h>

#include <algorithm>

#include "backends/backend_registry.h"
#include "cuda_test_util.h"

namespace tgc {
namespace {

using cuda_test::on;

TEST(CrossDevice, ASharedVariableFollowsEachFunctionToItsDevice) {
  TGC_REQUIRE_CUDA();
  const std::vector<std::string> built = built_backends();
  if (std::find(built.begin(), built.end(), "opencl") == built.end())
    GTEST_SKIP() << "needs a usable OpenCL device besides the GPU";
  RandomState rng(3);
  const Tensor start = rng.rand({1000}).astype(DType::Float32);
  Shared a = shared(start, "a");
  Function on_cuda = function({}, {a * 2.0}, {{a, a + 1.0}}, on("cuda"));
  Function on_opencl = function({}, {a * 2.0}, {{a, a + 1.0}}, on("opencl"));
  const std::vector<float> x = start.to_vector<float>();
  for (int round = 0; round < 2; ++round) {
    const std::vector<float> c = on_cuda()[0].to_vector<float>();
    const std::vector<float> o = on_opencl()[0].to_vector<float>();
    for (size_t i = 0; i < x.size(); i += 97) {
      EXPECT_FLOAT_EQ(c[i], 2.0f * (x[i] + 2.0f * round)) << i;
      EXPECT_FLOAT_EQ(o[i], 2.0f * (x[i] + 2.0f * round + 1.0f)) << i;
    }
  }
  EXPECT_FLOAT_EQ(a.get_value().to_vector<float>()[0], x[0] + 4.0f);
}

}  // namespace
}  // namespace tgc
