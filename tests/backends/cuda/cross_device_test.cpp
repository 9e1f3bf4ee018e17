// Values crossing devices in one process (label gpu): a float32 shared variable read by a cuda
// function and an opencl function moves to each function's device, through the host, and
// never hands one device's address to the other (the fault opencl_bench met); Tensor::to
// copies between two GPUs directly (a peer copy) and from a GPU to an OpenCL device through
// the host.
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

TEST(CrossDevice, ATensorGoesFromOneGpuToAnother) {
  TGC_REQUIRE_CUDA();
  if (cuda::cuda_status().devices.size() < 2) GTEST_SKIP() << "needs 2 CUDA devices";
  Device& gpu0 = device("cuda:0");
  Device& gpu1 = device("cuda:1");
  RandomState rng(4);
  const Tensor host = rng.rand({300, 7}).astype(DType::Float32);
  const Tensor on0 = host.to(gpu0);
  // Dense, a transposed view (made dense on cuda:0 first), a pending eager result, empty.
  for (const Tensor& src : {on0, on0.transpose({1, 0}), on0 * 2.0f + 1.0f, Tensor::empty(DType::Float32, {0, 3}, gpu0)}) {
    const Tensor on1 = src.to(gpu1);
    EXPECT_EQ(&on1.device(), &gpu1);
    EXPECT_EQ(on1.shape(), src.shape());
    EXPECT_TRUE(tensors_equal(on1.to_host(), src.to_host()));
  }
  // And back, twice in a row: each copy waits for the one before it.
  const Tensor back = on0.to(gpu1).to(gpu0).to(gpu1).to(gpu0);
  EXPECT_TRUE(tensors_equal(back.to_host(), host));
}

TEST(CrossDevice, ATensorGoesFromAGpuToAnOpenClDeviceThroughTheHost) {
  TGC_REQUIRE_CUDA();
  const std::vector<std::string> built = built_backends();
  if (std::find(built.begin(), built.end(), "opencl") == built.end())
    GTEST_SKIP() << "needs a usable OpenCL device besides the GPU";
  const Tensor host = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}).reshape({2, 3});
  const Tensor on_cuda = host.to(device("cuda:0"));
  const Tensor on_opencl = on_cuda.transpose({1, 0}).to(device("opencl"));
  EXPECT_EQ(on_opencl.device().kind(), DeviceKind::OpenCL);
  EXPECT_TRUE(tensors_equal(on_opencl.to_host(), host.transpose({1, 0}).contiguous()));
  EXPECT_TRUE(tensors_equal(on_opencl.to(device("cuda:0")).to_host(), host.transpose({1, 0}).contiguous()));
}

}  // namespace
}  // namespace tgc
