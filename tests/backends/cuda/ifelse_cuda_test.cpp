// Lazy ifelse on a CUDA device: conditions computed on the device from device data and
// conditions from host arguments give the CPU's results, the untaken branch's nodes run 0
// times, updates chosen by an ifelse train like on the CPU, calls alternate branches with
// allow_gc on and off, and a function with an ifelse is not recorded (cuda_graph_status says
// why).
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "backends/cuda/cuda_test_util.h"
#include "runtime/profiler.h"

namespace tgc {
namespace {

using cuda_test::expect_cuda_matches_cpu;
using cuda_test::on;

Tensor flag(int64_t v) { return Tensor::from_vector(std::vector<int64_t>{v}).reshape({}); }

TEST(CudaIfElse, DeviceConditionAndHostConditionMatchTheCpu) {
  TGC_REQUIRE_CUDA();
  RandomState rng(7);
  Var x = matrix("x", DType::Float32), c = scalar("c", DType::Int64);
  // Condition computed on the device from device data (one value copied back per call).
  std::vector<Var> dev = ifelse(x.sum() > 0.0f, {exp(x), dot(x, x).sum()}, {x * 3.0f, x.max()});
  for (double shift : {1.0, -1.0}) {
    std::vector<double> v = rng.rand({33, 33}).to_vector<double>();
    for (double& e : v) e += shift * 0.75;  // the sum's sign follows the shift
    const Tensor xv = Tensor::from_vector(v, {33, 33}).astype(DType::Float32);
    expect_cuda_matches_cpu({x}, dev, {xv}, 1e-4, 1e-4);
    // Condition from a host argument: its guard reads the host value, no wait.
    expect_cuda_matches_cpu({c, x}, {ifelse(c, tanh(x), x - 1.0f)}, {flag(shift > 0), xv});
  }
}

TEST(CudaIfElse, UntakenBranchRunsZeroTimesAndCallsAreNotRecorded) {
  TGC_REQUIRE_CUDA();
  Var c = scalar("c", DType::Int64), x = matrix("x", DType::Float32);
  Function f = function({c, x}, {ifelse(c, exp(x).sum(), dot(x, x).sum())}, {}, on("cuda", {{"profile", "true"}}));
  const Tensor xv = Tensor::from_vector<float>({1, 2, 3, 4}, {2, 2});
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(f(flag(0), xv)[0].to_host().item<float>(), 54.0f, 1e-3);
  const std::vector<std::string> order = f.toposort();
  bool saw_exp = false;
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i].rfind("IfElse", 0) != 0 && order[i].find("exp") != std::string::npos) {
      EXPECT_EQ(f.profiler()->thunk_calls(static_cast<int>(i)), 0) << order[i];
      saw_exp = true;
    }
  EXPECT_TRUE(saw_exp);
  Function g = function({c, x}, {ifelse(c, exp(x).sum(), dot(x, x).sum())}, {}, on("cuda"));
  for (int i = 0; i < 4; ++i) g(flag(i % 2), xv);
  EXPECT_EQ(g.cuda_graph_replays(), 0);
  EXPECT_NE(g.cuda_graph_status().find("an ifelse runs only its taken branch"), std::string::npos)
      << g.cuda_graph_status();
}

TEST(CudaIfElse, UpdatesChosenByAnIfElseAlternatingBranchesWithAndWithoutGc) {
  TGC_REQUIRE_CUDA();
  for (const char* gc : {"true", "false"}) {
    std::vector<std::vector<float>> results;
    for (const char* device : {"cpu", "cuda"}) {
      Shared w = shared(Tensor::from_vector<float>({0.5f, -1.0f, 2.0f}), "w");
      Var c = scalar("c", DType::Int64), x = vector("x", DType::Float32);
      Var cost = sqr(w * x).sum();
      Var step = ifelse(c, w - 0.1f * grad(cost, w), w * 0.5f);
      Function f = function({c, x}, {cost}, {{w, step}}, on(device, {{"allow_gc", gc}}));
      for (int i = 0; i < 6; ++i) f(flag(i % 3 != 0), Tensor::from_vector<float>({1.0f, 2.0f, -1.0f}));
      results.push_back(w.get_value().to_host().to_vector<float>());
    }
    for (size_t k = 0; k < results[0].size(); ++k)
      EXPECT_NEAR(results[1][k], results[0][k], 1e-5) << "allow_gc=" << gc << " element " << k;
  }
}

}  // namespace
}  // namespace tgc
