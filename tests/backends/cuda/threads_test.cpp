// Calls from many threads on one GPU (docs/api.md#threads): each call of one Function gets its
// own results, updates of a float32 shared variable kept on the device by several Functions
// are never lost, and get_value/set_value from another thread read and replace whole values,
// with cuda_graphs=auto (recording and replay) and off (node by node). Results are checked
// exactly (small integers in float32). TGC_THREADS_CALLS sets the calls per thread (default
// 1,000); issue 20's run is TGC_THREADS_CALLS=100000 build/tests/backends/cuda/backends_cuda_threads_tests.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "support/on_threads.h"

#include "backends/cuda/cuda_test_util.h"

namespace tgc {
namespace {

using cuda_test::on;

constexpr int kThreads = 8;

using test::on_threads;
int calls_per_thread(int fallback = 1000) { return test::calls_per_thread(fallback); }

class CudaThreads : public ::testing::TestWithParam<const char*> {};

TEST_P(CudaThreads, EachCallOfOneFunctionGetsItsOwnResults) {
  TGC_REQUIRE_CUDA();
  Var x = vector("x", DType::Float32), y = vector("y", DType::Float32);
  Var e = x * 2.0f + y;
  Function f = function({x, y}, {e, e.sum()}, {}, on("cuda", {{"cuda_graphs", GetParam()}}));
  const int calls = calls_per_thread();
  std::atomic<int> wrong{0};
  on_threads(kThreads, [&](int t) {
    for (int c = 0; c < calls; ++c) {
      const float a = static_cast<float>(t * 100 + c % 100), b = static_cast<float>(c % 7);
      std::vector<Tensor> r = f(Tensor::from_vector(std::vector<float>{a, 1, 2}), Tensor::from_vector(std::vector<float>{b, b, b}));
      const bool ok = r[0].to_vector<float>() == std::vector<float>{2 * a + b, 2 + b, 4 + b} &&
                      r[1].item<float>() == 2 * a + 6 + 3 * b;
      if (!ok) wrong.fetch_add(1);
    }
  });
  EXPECT_EQ(wrong.load(), 0) << "calls that returned another call's results; " << f.cuda_graph_status();
}

TEST_P(CudaThreads, FunctionsSharingADeviceVariableLoseNoUpdate) {
  TGC_REQUIRE_CUDA();
  // float32: the variable lives on the device and the update is written into its buffer.
  Shared count = shared(Tensor::from_vector(std::vector<float>{0, 0}), "count");
  std::vector<Function> fs;
  for (int t = 0; t < kThreads; ++t)
    fs.push_back(function({}, {}, {{count, count + 1.0f}}, on("cuda", {{"cuda_graphs", GetParam()}})));
  const int calls = calls_per_thread();
  on_threads(kThreads, [&](int t) {
    for (int c = 0; c < calls; ++c) fs[t]();
  });
  const float total = static_cast<float>(kThreads) * static_cast<float>(calls);  // exact below 2^24
  EXPECT_THAT(count.get_value().to_vector<float>(), ::testing::ElementsAre(total, total)) << fs[0].cuda_graph_status();
}

TEST_P(CudaThreads, GetAndSetValueFromAnotherThreadReadAndReplaceWholeValues) {
  TGC_REQUIRE_CUDA();
  Shared p = shared(Tensor::from_vector(std::vector<float>(1024, 0.0f)), "p");
  Function inc = function({}, {}, {{p, p + 1.0f}}, on("cuda", {{"cuda_graphs", GetParam()}}));
  const int calls = calls_per_thread();
  std::atomic<int> torn{0};
  std::atomic<bool> done{false};
  std::thread watcher([&] {
    int k = 0;
    while (!done.load()) {
      const std::vector<float> seen = p.get_value().to_vector<float>();
      for (float v : seen)
        if (v != seen[0]) {
          torn.fetch_add(1);
          break;
        }
      if (++k % 20 == 0) p.set_value(Tensor::from_vector(std::vector<float>(1024, seen[0])));
    }
  });
  on_threads(4, [&](int) {
    for (int c = 0; c < calls; ++c) inc();
  });
  done.store(true);
  watcher.join();
  EXPECT_EQ(torn.load(), 0);
}

// A device tensor read, copied and waited for on one thread (outside any call) while other
// threads compile functions and record their CUDA graphs: the reads wait for the device's
// lock instead of landing in (and spoiling) a recording; every recording and every read is
// right.
TEST(CudaThreadsOutsideCalls, ADeviceTensorUsedWhileOtherThreadsRecord) {
  TGC_REQUIRE_CUDA();
  Var x = vector("x", DType::Float32);
  Function make = function({x}, {gpu_from_host(x * 3.0f)}, {}, on("cuda", {{"cuda_graphs", "off"}}));
  const Tensor held = make(Tensor::from_vector(std::vector<float>(4096, 2.0f)))[0];  // 6.0 on the device
  ASSERT_FALSE(held.on_host());
  std::atomic<bool> done{false};
  std::atomic<int> wrong{0};
  std::thread reader([&] {
    while (!done.load()) {
      held.sync();
      const Tensor c = held.copy();
      if (c.to_host().to_vector<float>() != std::vector<float>(4096, 6.0f)) wrong.fetch_add(1);
    }
  });
  const int rounds = std::max(2, calls_per_thread() / 100);  // 10 by default
  on_threads(4, [&](int t) {
    for (int r = 0; r < rounds; ++r) {
      // A function of its own each round: its first calls record its graph.
      Shared w = shared(Tensor::from_vector(std::vector<float>(256, 1.0f)), "w");
      Function step = function({}, {sum(w * float(t + 1))}, {{w, w + 1.0f}},
                               on("cuda", {{"cuda_graphs", "auto"}}));
      for (int c = 0; c < 5; ++c)
        if (step()[0].item<float>() != 256.0f * (t + 1) * (c + 1)) wrong.fetch_add(1);
    }
  });
  done.store(true);
  reader.join();
  EXPECT_EQ(wrong.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Graphs, CudaThreads, ::testing::Values("auto", "off"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

}  // namespace
}  // namespace tgc
