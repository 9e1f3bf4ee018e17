// Lazy ifelse on a CUDA device: conditions computed on the device from device data and
// conditions from host arguments give the CPU's results, the untaken branch's nodes run 0
// times in a profile, updates chosen by an ifelse train like on the CPU, calls alternate
// branches with allow_gc on and off, and a call on device data is recorded whole: each replay
// runs the branch its condition picks (conditional graph nodes) and nothing of the other.
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

TEST(CudaIfElse, UntakenBranchRunsZeroTimesInAProfile) {
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
}

FunctionOptions device_result(const std::string& graphs) {
  FunctionOptions o = on("cuda", {{"cuda_graphs", graphs}});
  o.device_result = true;
  return o;
}

std::vector<float> host(const Tensor& t) { return t.to_host().to_vector<float>(); }

// The condition is computed on the device from a shared variable whose sign each call flips,
// so the branches alternate: every replay must take the branch its own condition picks, bit
// for bit as node by node, with two results of different shapes per branch pair.
TEST(CudaIfElse, ARecordedCallTakesTheBranchItsConditionPicksOnEachReplay) {
  TGC_REQUIRE_CUDA();
  auto build = [](const std::string& graphs) {
    Shared x = shared(Tensor::from_vector<float>({0.5f, -1.0f, 2.0f, 0.25f}), "x");
    std::vector<Var> out = ifelse(x.sum() > 0.0f, {exp(x).sum(), x * 2.0f}, {dot(x, x), tanh(x) - 1.0f});
    // Nested: an inner ifelse in the then branch, on a second condition.
    Var inner = ifelse(x.sum() > 0.0f, ifelse(x.max() > 1.0f, x.max() * 3.0f, x.min()), x.mean());
    Function f = function({}, {out[0], out[1], inner}, {{x, x * -1.5f}}, device_result(graphs));
    return std::make_pair(std::move(f), x);
  };
  auto [recorded, xr] = build("auto");
  auto [nodes, xn] = build("off");
  for (int i = 0; i < 12; ++i) {
    const std::vector<Tensor> a = recorded(), b = nodes();
    for (size_t k = 0; k < a.size(); ++k) ASSERT_EQ(host(a[k]), host(b[k])) << "call " << i << ", result " << k;
  }
  EXPECT_EQ(host(xr.get_value()), host(xn.get_value()));
  EXPECT_GT(recorded.cuda_graph_replays(), 6) << recorded.cuda_graph_status();
  EXPECT_NE(recorded.cuda_graph_status().find(" calls replayed"), std::string::npos) << recorded.cuda_graph_status();
}

// The then branch gathers at an index out of range: a kernel that ran would flag it and the
// replay would raise at its end. With the condition false no replay raises; set true, the
// call raises the host's error and changes no variable.
TEST(CudaIfElse, TheUntakenBranchOfAReplayRunsNothing) {
  TGC_REQUIRE_CUDA();
  Shared emb = shared(Tensor::from_vector<float>({1, 2, 3, 4, 5}), "emb");
  Shared index = shared(Tensor::from_vector<int32_t>({7}), "index");
  Shared use = shared(Tensor::full(DType::Float32, {}, 0.0), "use");
  Function f = function({}, {ifelse(use, take(emb, index, 0).sum(), emb.sum())}, {{emb, emb + 1.0f}},
                        device_result("auto"));
  for (int k = 0; k < 6; ++k) EXPECT_EQ(host(f()[0]), std::vector<float>{15.0f + 5.0f * static_cast<float>(k)}) << k;
  EXPECT_GT(f.cuda_graph_replays(), 2) << f.cuda_graph_status();
  use.set_value(Tensor::full(DType::Float32, {}, 1.0));
  for (int k = 0; k < 3; ++k) {  // node by node, recorded, replayed: each raises
    try {
      f();
      ADD_FAILURE() << "an index out of range in the taken branch did not raise";
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find("index 7 is out of bounds"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(host(emb.get_value()), (std::vector<float>{7, 8, 9, 10, 11})) << f.cuda_graph_status();
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
