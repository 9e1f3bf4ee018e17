// Random draws on each GPU API (PoCL's OpenCL in CI, label opencl; CUDA, label gpu): the same
// numbers as the host for the same seed, call after call, with the stream's state kept on the
// device (no transfer of it in the compiled graph) and, on CUDA, calls recorded and replayed as
// a CUDA graph while still drawing new numbers. Few entries on purpose (PoCL builds each).
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "gpu_test_device.h"
#include "ops/core/graph.h"
#include "support/distribution_checks.h"

namespace tgc {
namespace {

struct Draws {
  RandomStreams rng;
  Var u, k, p;
  explicit Draws(uint64_t seed) : rng(seed) {
    u = rng.uniform({(1 << 18) + 3}, 0.0, 1.0, DType::Float32);  // float4 stores and a tail
    k = rng.randint({37}, -5, 1000, DType::Int64);
    p = rng.permutation(19);
  }
};

TEST(RandomThunks, DrawOnTheDeviceWhatTheHostDrawsCallAfterCall) {
  TGC_REQUIRE_GPU();
  Draws dev(77), host(77);
  Function fd = function({}, {dev.u, dev.k, dev.p}, {}, {.config = {{"device", gpu_test::api()}}});
  Function fh = function({}, {host.u, host.k, host.p}, {}, {.config = {{"device", "cpu"}}});
  for (Node* n : fd.graph().toposort()) {
    EXPECT_EQ(fd.host_reason(*n), "") << n->describe();
    // The states stay on the device: no transfer reads a shared variable.
    if (n->op().is_transfer()) EXPECT_NE(n->inputs()[0]->kind(), Variable::Kind::Shared) << n->describe();
  }
  for (int call = 0; call < 3; ++call) {
    const auto d = fd(), h = fh();
    EXPECT_EQ(d[0].to_vector<float>(), h[0].to_vector<float>()) << "call " << call;
    EXPECT_EQ(d[1].to_vector<int64_t>(), h[1].to_vector<int64_t>()) << "call " << call;
    EXPECT_EQ(d[2].to_vector<int64_t>(), h[2].to_vector<int64_t>()) << "call " << call;
  }
  // The device's states moved as the host's did.
  for (size_t s = 0; s < 3; ++s)
    EXPECT_EQ(dev.rng.states()[s].get_value().to_vector<int64_t>(), host.rng.states()[s].get_value().to_vector<int64_t>());
  dev.rng.seed(77);
  host.rng.seed(77);
  EXPECT_EQ(fd()[0].to_vector<float>(), fh()[0].to_vector<float>());
}

// 10^6 draws made on the device pass the same tests as the host's (they are the same numbers,
// but this holds the device to it directly): Kolmogorov-Smirnov for uniform and normal floats.
TEST(RandomThunks, DeviceDrawsPassKolmogorovSmirnov) {
  TGC_REQUIRE_GPU();
  RandomStreams rng(2024);
  Var u = rng.uniform({1000000}, 0.0, 1.0, DType::Float32), z = rng.normal({1000000}, 0.0, 1.0, DType::Float32);
  Function f = function({}, {u, z}, {}, {.config = {{"device", gpu_test::api()}}});
  for (int call = 0; call < 2; ++call) {
    const auto r = f();
    const auto uv = r[0].to_vector<float>(), zv = r[1].to_vector<float>();
    EXPECT_LT(test::ks_statistic(std::vector<double>(uv.begin(), uv.end()), test::uniform_cdf), test::kKsCritical001);
    EXPECT_LT(test::ks_statistic(std::vector<double>(zv.begin(), zv.end()), test::normal_cdf), test::kKsCritical001);
  }
}

#if TGC_TEST_GPU_CUDA
TEST(RandomThunks, ACallWithDrawsIsRecordedAndStillDrawsAnew) {
  TGC_REQUIRE_GPU();
  RandomStreams rng(5), ref(5);
  // x is a float32 shared variable: on the device, so a call moves nothing there.
  Shared x = shared(Tensor::full(DType::Float32, {4096}, 1.0), "x");
  Var dropped = x * rng.binomial(DrawSize::like_of(x), 1, 0.5, DType::Float32);
  Var dropped_ref = x * ref.binomial(DrawSize::like_of(x), 1, 0.5, DType::Float32);
  Function f = function({}, {gpu_from_host(dropped)}, {}, {.config = {{"device", "cuda"}}});
  Function h = function({}, {dropped_ref}, {}, {.config = {{"device", "cpu"}}});
  std::vector<float> previous;
  for (int call = 0; call < 12; ++call) {
    const auto got = f()[0].to_host().to_vector<float>();
    EXPECT_EQ(got, h()[0].to_vector<float>()) << "call " << call;
    EXPECT_NE(got, previous) << "call " << call;
    previous = got;
  }
  EXPECT_GT(f.cuda_graph_replays(), 0) << f.cuda_graph_status();
}
#endif

}  // namespace
}  // namespace tgc
