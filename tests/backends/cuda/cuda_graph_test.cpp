// cuda_graphs=auto on the GPU: recorded calls give the bits node-by-node calls give (check2,
// a training step with shared-variable updates), held results stay intact, functions with
// host transfers or kernels that read an error flag run node by node, and index checks are
// made at the end of a replay.
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "backends/cuda/cuda_test_util.h"

namespace tgc {
namespace {

using cuda_test::on;

FunctionOptions device_result(std::map<std::string, std::string> extra = {}) {
  FunctionOptions o = on("cuda", std::move(extra));
  o.device_result = true;
  return o;
}

std::vector<float> host(const Tensor& t) { return t.to_host().to_vector<float>(); }

TEST(CudaGraphs, RepeatedCallsReplayAndGiveTheSameBits) {
  TGC_REQUIRE_CUDA();
  RandomState rng(22);
  Shared x = shared(rng.rand({230400}).astype(DType::Float32), "x");
  Function graphs = function({}, {gpu_from_host(exp(x))}, {}, on("cuda"));
  Function nodes = function({}, {gpu_from_host(exp(x))}, {}, on("cuda", {{"cuda_graphs", "off"}}));
  const std::vector<float> want = host(nodes()[0]);
  std::vector<Tensor> last;
  for (int i = 0; i < 8; ++i) {
    last = graphs();  // `last` is still held during the call: two recordings alternate
    ASSERT_EQ(host(last[0]), want) << "call " << i;
  }
  EXPECT_GT(graphs.cuda_graph_replays(), 0);
  EXPECT_EQ(nodes.cuda_graph_replays(), 0);
  EXPECT_NE(graphs.cuda_graph_status().find(" calls replayed"), std::string::npos) << graphs.cuda_graph_status();
  EXPECT_EQ(nodes.cuda_graph_status(), "off: cuda_graphs=off");
}

TEST(CudaGraphs, ResultsTheCallerKeepsAreNeverOverwritten) {
  TGC_REQUIRE_CUDA();
  Shared x = shared(Tensor::from_vector<float>({1, 2, 3, 4}), "x");
  Function f = function({}, {gpu_from_host(x * 2)}, {{x, x + 1}}, on("cuda"));
  std::vector<Tensor> kept;
  for (int i = 0; i < 8; ++i) kept.push_back(f()[0]);
  for (int i = 0; i < 8; ++i) {
    const float b = static_cast<float>(2 * (1 + i));
    EXPECT_EQ(host(kept[i]), (std::vector<float>{b, b + 2, b + 4, b + 6})) << "result of call " << i;
  }
  EXPECT_EQ(host(x.get_value()), (std::vector<float>{9, 10, 11, 12}));
}

// The tutorial's training step, its updates written in place by the recording.
TEST(CudaGraphs, TrainingStepsWithUpdatesMatchNodeByNodeBitForBit) {
  TGC_REQUIRE_CUDA();
  auto build = [](const std::string& graphs) {
    RandomState rng(22);
    Shared x = shared(rng.randn({400, 784}).astype(DType::Float32), "x");
    Shared y = shared(rng.randint(0, 2, {400}).astype(DType::Float32), "y");
    Shared w = shared(rng.randn({784}).astype(DType::Float32), "w");
    Shared b = shared(Tensor::full(DType::Float32, {}, 0.0), "b");
    Var p_1 = 1 / (1 + exp(-dot(x, w) - b));
    Var xent = -y * log(p_1) - (1 - y) * log(1 - p_1);
    Var cost = mean(xent) + 0.01 * sum(pow(w, 2));
    std::vector<Var> g = grad(cost, {w, b});
    Function f = function({}, {p_1 > 0.5, xent}, {{w, w - 0.1 * g[0]}, {b, b - 0.1 * g[1]}},
                          device_result({{"cuda_graphs", graphs}}));
    return std::make_tuple(std::move(f), w, b);
  };
  auto [fg, wg, bg] = build("auto");
  auto [fn, wn, bn] = build("off");
  for (int step = 0; step < 20; ++step) {
    std::vector<Tensor> a = fg(), b = fn();
    ASSERT_EQ(host(a[1]), host(b[1])) << "xent at step " << step;
  }
  EXPECT_EQ(host(wg.get_value()), host(wn.get_value()));
  EXPECT_EQ(host(bg.get_value()), host(bn.get_value()));
  EXPECT_GT(fg.cuda_graph_replays(), 10);
}

// A shared variable that changes shape: the function runs a program compiled for each set of
// shared shapes (docs/optimizations.md#shape-facts), and each program records and replays its
// own calls. With the bias alternating between a (32, 8) matrix and a (1, 8) row (whose
// gradient is a column sum), the training step gives the bits of node-by-node calls.
TEST(CudaGraphs, EachProgramForNewSharedShapesRecordsItsOwnCalls) {
  TGC_REQUIRE_CUDA();
  auto build = [](const std::string& graphs) {
    RandomState rng(5);
    Shared x = shared(rng.randn({32, 16}).astype(DType::Float32), "x");
    Shared w = shared(rng.randn({16, 8}).astype(DType::Float32), "w");
    Shared b = shared(rng.randn({32, 8}).astype(DType::Float32), "b");
    Var d = tanh(dot(x, w) + b) - 0.5f;
    Var cost = mean(d * d);
    std::vector<Var> g = grad(cost, {w, b});
    Function f = function({}, {cost}, {{w, w - 0.1f * g[0]}, {b, b - 0.1f * g[1]}},
                          device_result({{"cuda_graphs", graphs}}));
    return std::make_tuple(std::move(f), w, b);
  };
  auto [fg, wg, bg] = build("auto");
  auto [fn, wn, bn] = build("off");
  const Tensor full = bg.get_value(), row = RandomState(6).randn({1, 8}).astype(DType::Float32);
  ::testing::internal::CaptureStderr();
  int replays = 0;
  for (int round = 0; round < 4; ++round) {
    const Tensor& b0 = round % 2 ? row : full;
    bg.set_value(b0);
    bn.set_value(b0);
    for (int step = 0; step < 5; ++step) ASSERT_EQ(host(fg()[0]), host(fn()[0])) << "round " << round << ", step " << step;
    ASSERT_EQ(bg.get_value().shape(), b0.shape());
    ASSERT_EQ(host(bg.get_value()), host(bn.get_value())) << "round " << round;
    EXPECT_GT(fg.cuda_graph_replays(), replays) << "round " << round;
    replays = fg.cuda_graph_replays();
  }
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(fg.compiled_programs(), 2);
  EXPECT_EQ(fn.compiled_programs(), 2);
  EXPECT_EQ(host(wg.get_value()), host(wn.get_value()));
}

// check1: the HostFromGpu at the end records as a copy into pinned memory; each replay waits
// for it, and a result the caller keeps is not overwritten.
TEST(CudaGraphs, ResultsCopiedToTheHostAreRecordedAndReady) {
  TGC_REQUIRE_CUDA();
  Shared x = shared(Tensor::from_vector<float>({1, 2, 3}), "x");
  Function f = function({}, {x * 2}, {{x, x + 1}}, on("cuda"));  // a HostFromGpu at the end
  std::vector<Tensor> kept;
  for (int i = 0; i < 8; ++i) {
    kept.push_back(f()[0]);
    ASSERT_TRUE(kept.back().on_host());
    const float b = static_cast<float>(2 * (1 + i));
    EXPECT_EQ(kept.back().to_vector<float>(), (std::vector<float>{b, b + 2, b + 4})) << "call " << i;
    if (i % 2) kept.clear();  // released results let their recordings replay
  }
  EXPECT_GT(f.cuda_graph_replays(), 0);
  EXPECT_EQ(host(x.get_value()), (std::vector<float>{9, 10, 11}));
}

TEST(CudaGraphs, HostArgumentsAndErrorFlagsRunNodeByNode) {
  TGC_REQUIRE_CUDA();
  Shared x = shared(Tensor::from_vector<float>({7, 8, 9}), "x");
  Shared y = shared(Tensor::from_vector<float>({2, 0, 3}), "y");
  Var a = vector("a", DType::Float32);
  Function from_host = function({a}, {gpu_from_host(a * 2)}, {}, on("cuda"));  // a GpuFromHost first
  for (int i = 0; i < 4; ++i) {
    const float v = static_cast<float>(i);
    EXPECT_EQ(host(from_host({Tensor::from_vector<float>({v, v + 1})})[0]), (std::vector<float>{2 * v, 2 * v + 2}));
  }
  EXPECT_EQ(from_host.cuda_graph_replays(), 0);
  // Integer division reads its error flag back (a synchronisation): the recording fails and
  // the function runs node by node, raising the reference's error.
  Var q = gpu_from_host(floor_div(x.astype(DType::Int32), y.astype(DType::Int32)));
  Function div = function({}, {q}, {}, on("cuda"));
  for (int i = 0; i < 4; ++i) EXPECT_THROW(div(), ValueError) << "call " << i;
  y.set_value(Tensor::from_vector<float>({2, 4, 3}));
  for (int i = 0; i < 4; ++i) {
    std::vector<Tensor> r = div();
    EXPECT_EQ(r[0].to_host().to_vector<int32_t>(), (std::vector<int32_t>{3, 2, 3}));
  }
  EXPECT_EQ(div.cuda_graph_replays(), 0);
  // The status says why: the kernel's error flag is read back, a wait a recording cannot hold.
  EXPECT_NE(div.cuda_graph_status().find("recording given up: a wait for the device"), std::string::npos)
      << div.cuda_graph_status();
}

// An embedding lookup's index check (the gather's error flag) is made at the replay's end, so
// the call records; an index that goes out of range during a replay raises the host's error
// at the end of that call, and the call's updates are skipped: no variable changes.
TEST(CudaGraphs, IndexChecksAreMadeAtTheReplaysEndAndARaisingCallChangesNothing) {
  TGC_REQUIRE_CUDA();
  Shared emb = shared(Tensor::from_vector<float>({1, 2, 3, 4, 5}), "emb");
  Shared c = shared(Tensor::from_vector<float>({0, 1}), "c");  // the indices, one further each call
  Function f = function({}, {take(emb, c.astype(DType::Int32), 0)}, {{c, c + 1}, {emb, emb * 2}}, device_result());
  for (int k = 0; k < 4; ++k) {  // c = [k, k + 1]: in range while k + 1 <= 4
    const float scale = static_cast<float>(1 << k);
    EXPECT_EQ(host(f()[0]), (std::vector<float>{scale * (k + 1), scale * (k + 2)})) << "call " << k;
  }
  EXPECT_GT(f.cuda_graph_replays(), 0) << f.cuda_graph_status();
  try {
    f();  // c = [4, 5]: 5 is out of range
    ADD_FAILURE() << "an index out of range did not raise";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("index 5 is out of bounds for axis 0 with size 5"), std::string::npos) << e.what();
  }
  EXPECT_EQ(host(c.get_value()), (std::vector<float>{4, 5}));
  EXPECT_EQ(host(emb.get_value()), (std::vector<float>{16, 32, 48, 64, 80}));
  c.set_value(Tensor::from_vector<float>({4, 0}));  // in range again: the function goes on
  EXPECT_EQ(host(f()[0]), (std::vector<float>{80, 16}));
}

TEST(CudaGraphs, AnEmbeddingUpdateIsWrittenInPlaceByTheRecordedCall) {
  TGC_REQUIRE_CUDA();
  // The bag of words' pattern: a gather of rows, its gradient scattered into the table. The
  // recording must write the table in place (the scatter), not copy it in at the end: a
  // reference kept by the gather's deferred index check, or by an earlier recording, used to
  // force a copy of the whole table per call.
  RandomState rng(5);
  Shared emb = shared(rng.rand({200, 16}).astype(DType::Float32), "emb");
  Shared tokens = shared(Tensor::from_vector<int32_t>({3, 7, 3, 150, 0, 199}), "tokens");
  Var loss = sum(sqr(take(emb, tokens, 0)));
  Function f = function({}, {loss}, {{emb, emb - 0.1 * grad(loss, emb)}}, device_result());
  Shared emb_cpu = shared(emb.get_value().copy(), "emb_cpu");
  Var loss_cpu = sum(sqr(take(emb_cpu, tokens, 0)));
  Function g = function({}, {loss_cpu}, {{emb_cpu, emb_cpu - 0.1 * grad(loss_cpu, emb_cpu)}}, cuda_test::on("cpu"));
  std::vector<Tensor> kept;  // the caller keeps some results: the two recordings alternate
  for (int k = 0; k < 8; ++k) {
    Tensor r = f()[0];
    g();
    if (k % 3 == 0) kept.push_back(r);
  }
  EXPECT_GT(f.cuda_graph_replays(), 0) << f.cuda_graph_status();
  EXPECT_NE(f.cuda_graph_status().find("1 of 1 update written in place"), std::string::npos) << f.cuda_graph_status();
  EXPECT_TRUE(tensors_allclose(emb.get_value().to_host(), emb_cpu.get_value(), 1e-5, 1e-6));
}

}  // namespace
}  // namespace tgc
