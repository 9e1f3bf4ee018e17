// Data-parallel training on CUDA devices over NCCL (label `gpu`): 1, 2 and 4 ranks of one
// process, one thread and one GPU each, in one in-process NCCL group (CommGroup peers: one
// ncclCommInitAll), train an MLP and get the parameters and costs of one GPU trained on the
// whole batch (float64, so the only differences are the order of sums). Such ranks run
// node by node (4 of them recording at once hung: frontend/api/function.cpp) with their
// collectives in line (4 of them on side streams hung too: backends/gpu/collective_rules.cpp). The same training
// with one process per GPU is `distributed_bench check` under `tgc launch` (docs/performance.md,
// issue 27).
// The same ranks from one function() (data_parallel.devices) train the same way.
// Skipped, with the reason, without NCCL or with fewer GPUs than ranks.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include <tgc/tgc.h>

#include "backends/cuda/cuda_device.h"
#include "backends/cuda/nccl_library.h"
#include "cuda_test_util.h"
#include "support/one_hot.h"

namespace tgc {
namespace {

constexpr int64_t kBatch = 64, kIn = 20, kHidden = 32, kClasses = 5;
constexpr int kSteps = 5;

struct Batches {
  std::vector<Tensor> x, y;
};

Batches make_batches() {
  RandomState rng(11);
  Batches b;
  for (int s = 0; s < kSteps; ++s) {
    b.x.push_back(rng.randn({kBatch, kIn}));
    b.y.push_back(test::one_hot(rng.randint(0, kClasses, {kBatch}), kClasses));
  }
  return b;
}

struct Training {
  std::vector<double> losses;
  std::vector<Tensor> params;
  std::string cuda_graph;  // Function::cuda_graph_status() after the steps
};

// Trains the 20-32-5 relu MLP on `device` for kSteps, data-parallel over `group` when given,
// or over `devices` from one function (data_parallel.devices).
Training train(const Batches& b, const std::string& device, const CommGroupPtr& group,
               const std::vector<std::string>& devices = {}) {
  RandomState rng(3);
  Var x = matrix("x", DType::Float64), y = matrix("y", DType::Float64);
  std::vector<Shared> params = {shared(rng.randn({kIn, kHidden}), "w1"), shared(Tensor::zeros(DType::Float64, {kHidden}), "b1"),
                                shared(rng.randn({kHidden, kClasses}), "w2"), shared(Tensor::zeros(DType::Float64, {kClasses}), "b2")};
  Var h = maximum(dot(x, params[0]) + params[1], 0.0);
  Var loss = -mean(sum(y * log_softmax(dot(h, params[2]) + params[3]), 1));
  std::vector<Var> wrt(params.begin(), params.end());
  std::vector<Var> g = grad(loss, wrt);
  Updates updates;
  for (size_t i = 0; i < params.size(); ++i) updates.emplace_back(params[i], params[i] - 0.2 * g[i]);
  FunctionOptions o;
  o.name = "train";
  o.config = {{"device", device}};
  if (group) o.data_parallel = {.split = {{x, 0}, {y, 0}}, .group = group};
  if (!devices.empty()) o.data_parallel = {.split = {{x, 0}, {y, 0}}, .devices = devices};
  Function f = function({x, y}, {loss}, updates, o);
  Training t;
  for (int s = 0; s < kSteps; ++s) t.losses.push_back(f(b.x[s], b.y[s])[0].item<double>());
  for (Shared& p : params) t.params.push_back(p.get_value());
  t.cuda_graph = f.cuda_graph_status();
  return t;
}

class DataParallelGpu : public ::testing::TestWithParam<int> {};

// Why `n` ranks cannot run here ("" when they can): no NCCL, or fewer GPUs than ranks.
std::string missing_for(int n) {
  if (!cuda::nccl_status().available) return "needs NCCL: " + cuda::nccl_status().reason;
  const size_t visible = cuda::cuda_status().devices.size();
  if (visible < static_cast<size_t>(n))
    return "needs " + std::to_string(n) + " CUDA devices, " + std::to_string(visible) + " visible";
  return "";
}

TEST_P(DataParallelGpu, RanksOfOneProcessTrainAsOneGpuOnTheWholeBatch) {
  TGC_REQUIRE_CUDA();
  const int n = GetParam();
  if (const std::string why = missing_for(n); !why.empty()) GTEST_SKIP() << why;

  const Batches b = make_batches();
  const Training alone = train(b, "cuda:0", nullptr);
  std::vector<Device*> peers;
  for (int r = 0; r < n; ++r) peers.push_back(&cuda::cuda_device(r));
  std::vector<CommGroupPtr> groups;
  for (int r = 0; r < n; ++r) groups.push_back(std::make_shared<CommGroup>(r, n, "dp-gpu", peers));
  std::vector<Training> runs(n);
  std::vector<std::thread> threads;
  std::vector<std::string> failures(n);
  for (int r = 0; r < n; ++r)
    threads.emplace_back([&, r] {
      try {
        runs[r] = train(b, "cuda:" + std::to_string(r), groups[r]);
      } catch (const std::exception& e) {
        failures[r] = e.what();
      }
    });
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < n; ++r) ASSERT_EQ(failures[r], "") << "rank " << r;

  for (int r = 0; r < n; ++r) {
    if (n > 1) {
      EXPECT_NE(runs[r].cuda_graph.find("runs node by node"), std::string::npos) << runs[r].cuda_graph;
    }
    for (int s = 0; s < kSteps; ++s)
      EXPECT_NEAR(runs[r].losses[s], alone.losses[s], 1e-10) << "rank " << r << " step " << s;
    for (size_t p = 0; p < alone.params.size(); ++p) {
      EXPECT_TRUE(tensors_allclose(runs[r].params[p], alone.params[p], 1e-10, 1e-10))
          << "rank " << r << " parameter " << p << "\n got " << runs[r].params[p].str() << "\nwant " << alone.params[p].str();
      EXPECT_TRUE(tensors_equal(runs[r].params[p], runs[0].params[p])) << "replicas differ: rank " << r;
    }
  }
}

// The same ranks from one function() over several devices: one call runs them all, and the
// user's own variables end as one GPU's on the whole batch.
TEST_P(DataParallelGpu, OneFunctionOverDevicesTrainsAsOneGpuOnTheWholeBatch) {
  TGC_REQUIRE_CUDA();
  const int n = GetParam();
  if (const std::string why = missing_for(n); !why.empty()) GTEST_SKIP() << why;

  const Batches b = make_batches();
  const Training alone = train(b, "cuda:0", nullptr);
  std::vector<std::string> devices;
  for (int r = 0; r < n; ++r) devices.push_back("cuda:" + std::to_string(r));
  const Training run = train(b, "cpu", nullptr, devices);
  for (int s = 0; s < kSteps; ++s) EXPECT_NEAR(run.losses[s], alone.losses[s], 1e-10) << "step " << s;
  for (size_t p = 0; p < alone.params.size(); ++p)
    EXPECT_TRUE(tensors_allclose(run.params[p], alone.params[p], 1e-10, 1e-10))
        << "parameter " << p << "\n got " << run.params[p].str() << "\nwant " << alone.params[p].str();
}

INSTANTIATE_TEST_SUITE_P(Ranks, DataParallelGpu, ::testing::Values(1, 2, 4),
                         [](const ::testing::TestParamInfo<int>& i) { return std::to_string(i.param); });

}  // namespace
}  // namespace tgc
