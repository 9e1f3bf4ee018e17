// gpu_bench: issue 7's GPU goals on an H100/H200 (check2, check1, the logistic-regression step,
// the fused chain against a device-to-device copy, sum of squares, sgemm against cuBLAS, cold
// and warm compile), each timed with its device work included, and issue 19's networks (the
// MLP steps of benchmarks/compare and the bag-of-words classifier), in steps per second.
// Without a GPU: a skip, exit 0.
//
//   build/benchmarks/gpu_bench                       # about a minute on an H100
//   build/benchmarks/gpu_bench --benchmark_filter=Sgemm
//   build/benchmarks/gpu_bench --warm-start DIR      # internal: one compile against DIR (see below)
//
// tgc's device work is asynchronous, and its stream is private to the library, so every tgc
// timing is wall clock around a batch of calls ending with Tensor::sync() on the last result
// (or a call that returns host values, which waits by itself). The baselines (cudaMemcpyAsync,
// cublasSgemm) are timed the same way on a stream of their own, in the same iterations, so a
// ratio compares like with like. Each iteration's reported time is per unit of the goal (per
// 1000 calls, per call, per step); the goal counters use the median iteration.
#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <fmt/core.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <tgc/tgc.h>

#include "bench_util.h"

namespace {

using namespace tgc;
using namespace tgc::bench;
namespace fs = std::filesystem;

// ---- The baselines' CUDA objects (this binary's own CUDA runtime; it shares the device's
// primary context with libtgc's, and the two never exchange pointers or streams). ----

void cuda_check(cudaError_t err, const char* call) {
  if (err != cudaSuccess) throw std::runtime_error(fmt::format("{}: {}", call, cudaGetErrorString(err)));
}
void cublas_check(cublasStatus_t st, const char* call) {
  if (st != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(fmt::format("{}: {}", call, cublasGetStatusString(st)));
}
#define GPU_BENCH_CUDA(call) cuda_check((call), #call)
#define GPU_BENCH_CUBLAS(call) cublas_check((call), #call)

class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) { GPU_BENCH_CUDA(cudaMalloc(&ptr_, bytes)); }
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return ptr_; }
  float* floats() const { return static_cast<float*>(ptr_); }

 private:
  void* ptr_ = nullptr;
};

class BaselineStream {
 public:
  BaselineStream() { GPU_BENCH_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~BaselineStream() { cudaStreamDestroy(s_); }
  BaselineStream(const BaselineStream&) = delete;
  BaselineStream& operator=(const BaselineStream&) = delete;
  cudaStream_t get() const { return s_; }
  void sync() const { GPU_BENCH_CUDA(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

class CublasHandle {
 public:
  CublasHandle() { GPU_BENCH_CUBLAS(cublasCreate(&h_)); }
  ~CublasHandle() { cublasDestroy(h_); }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return h_; }

 private:
  cublasHandle_t h_ = nullptr;
};

// ---- Timing and reporting ----


// Seconds for `calls` calls of `call`, then `sync` (the device work is included).

// The benchmarks refuse to time a function whose result is wrong: |got - want| must be within
// tol of max(|want|, 1) (relative for large values, absolute near zero, where the chain can be).
void expect_close(double got, double want, double tol, const std::string& what) {
  double err = std::abs(got - want) / std::max(std::abs(want), 1.0);
  if (!(err <= tol))
    throw std::runtime_error(fmt::format("{}: got {}, expected {} (error {:.2e} > {:.0e})", what, got, want, err, tol));
}

// `graphs` false: cuda_graphs=off, every call node by node (the A/B of docs/gpu.md#cuda-graphs).
FunctionOptions on_gpu(const std::string& name, bool device_result = false, bool graphs = true) {
  FunctionOptions o{.name = name, .config = {{"device", "cuda"}}, .device_result = device_result};
  if (!graphs) o.config["cuda_graphs"] = "off";
  return o;
}

const char* graphs_label(bool graphs) { return graphs ? "" : " [cuda_graphs=off]"; }


// ---- 1, 2: the tutorial's check2 and check1 (exp over 230400 float32, 1000 calls) ----

constexpr int64_t kVlen = 10 * 30 * 768;
constexpr int kLoop = 1000;

void time_check(benchmark::State& state, bool result_on_device, bool graphs) {
  RandomState rng(22);
  Tensor hx = rng.rand({kVlen}).astype(DType::Float32);
  Shared x = shared(hx, "x");
  Var out = result_on_device ? gpu_from_host(exp(x)) : exp(x);
  Function f = function({}, {out}, {}, on_gpu(result_on_device ? "check2" : "check1", false, graphs));

  std::vector<Tensor> last = f();  // the first call moves x to the device
  if (last[0].on_host() == result_on_device)
    throw std::runtime_error(result_on_device ? "check2's result came back to the host: gpu_from_host was not honoured"
                                              : "check1's result stayed on the device");
  const float* xs = hx.data<float>();
  Tensor got = last[0].to_host();
  for (int64_t i : {int64_t{0}, kVlen / 2, kVlen - 1})
    expect_close(got.data<float>()[i], std::exp(static_cast<double>(xs[i])), 1e-5, "exp(x)[" + std::to_string(i) + "]");
  for (int i = 0; i < 50; ++i) last = f();  // warm-up
  sync_all(last);

  std::vector<double> per_loop;
  for (auto _ : state) {
    double s = time_batch(kLoop, [&] { last = f(); }, [&] { sync_all(last); });
    state.SetIterationTime(s);
    per_loop.push_back(s);
  }
  const double ms = 1e3 * median(per_loop), goal = result_on_device ? 4 : 50;
  state.counters["ms_per_1000_calls"] = ms;
  state.counters["goal_ms"] = goal;
  state.SetLabel(fmt::format("{} {:.2f} ms per 1000 calls, goal < {} ms: {}{}",
                             result_on_device ? "result on device" : "result to host", ms, goal, verdict(ms < goal),
                             graphs_label(graphs)));
}

// Arg: cuda_graphs (1, the default: auto; 0: off).
void BM_Check2_ExpResultOnDevice(benchmark::State& state) {
  guarded(state, [&] { time_check(state, true, state.range(0) != 0); });
}
BENCHMARK(BM_Check2_ExpResultOnDevice)->Arg(1)->Arg(0)->Iterations(10)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_Check1_ExpResultToHost(benchmark::State& state) {
  guarded(state, [&] { time_check(state, false, state.range(0) != 0); });
}
BENCHMARK(BM_Check1_ExpResultToHost)->Arg(1)->Arg(0)->Iterations(5)->UseManualTime()->Unit(benchmark::kMillisecond);

// ---- 3: the tutorial's logistic-regression training step ----

// The graph of examples/logreg.tg (and benchmarks/compare/tgc_driver.cpp): data and parameters
// in float32 shared variables, one gradient step per call, outputs [prediction, xent].
struct LogregGraph {
  std::vector<Var> outputs;
  Updates updates;
};

LogregGraph logreg_graph() {
  constexpr int64_t N = 400, feats = 784;
  RandomState rng(22);
  Shared x = shared(rng.randn({N, feats}).astype(DType::Float32), "x");
  Shared y = shared(rng.randint(0, 2, {N}).astype(DType::Float32), "y");
  Shared w = shared(rng.randn({feats}).astype(DType::Float32), "w");
  Shared b = shared(Tensor::full(DType::Float32, {}, 0.0), "b");
  Var p_1 = 1 / (1 + exp(-dot(x, w) - b));
  Var prediction = p_1 > 0.5;
  Var xent = -y * log(p_1) - (1 - y) * log(1 - p_1);
  Var cost = mean(xent) + 0.01 * sum(pow(w, 2));
  std::vector<Var> g = grad(cost, {w, b});
  return LogregGraph{{prediction, xent}, {{w, w - 0.01 * g[0]}, {b, b - 0.01 * g[1]}}};
}

constexpr int kSteps = 200;

// Arg 0: the tutorial's function, its outputs copied to the host every step (as the peers of
// issue 9 measure it: the goal); 1: the same with device_result, for reference. Arg 1:
// cuda_graphs (1, the default: auto; 0: off). Arg 2: 1 waits for the device after
// every step (0 otherwise), so that a device_result step is timed as one round trip like a to-host one,
// without the copies (what the copies cost, and what pipelining hides).
void BM_LogregTrainStep(benchmark::State& state) {
  guarded(state, [&] {
    const bool device_result = state.range(0) != 0, graphs = state.range(1) != 0;
    const bool wait_each = state.range(2) != 0;
    LogregGraph g = logreg_graph();
    Function train = function({}, g.outputs, g.updates, on_gpu("train", device_result, graphs));
    std::vector<Tensor> last;
    for (int i = 0; i < 50; ++i) last = train();  // moves the shared variables to the device
    sync_all(last);
    Tensor xent = last[1].to_host();
    if (!std::isfinite(xent.data<float>()[0])) throw std::runtime_error("the training step's xent is not finite");

    std::vector<double> per_step;
    for (auto _ : state) {
      double s = time_batch(
                     kSteps,
                     [&] {
                       last = train();
                       if (wait_each) sync_all(last);
                     },
                     [&] { sync_all(last); }) /
                 kSteps;
      state.SetIterationTime(s);
      per_step.push_back(s);
    }
    const double us = 1e6 * median(per_step);
    state.counters["us_per_step"] = us;
    state.counters["goal_us"] = 25;
    state.SetLabel(fmt::format("outputs {}{}: {:.1f} us per step, goal < 25 us: {}{}",
                               device_result ? "on device (device_result)" : "to host (the tutorial's)",
                               wait_each ? ", waited for after every step" : "", us, verdict(us < 25),
                               graphs_label(graphs)));
  });
}
BENCHMARK(BM_LogregTrainStep)
    ->Args({0, 1, 0})
    ->Args({1, 1, 0})
    ->Args({0, 0, 0})
    ->Args({1, 0, 0})
    ->Args({1, 1, 1})
    ->Iterations(10)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// ---- 3b: a step with a lazy ifelse on a device value ----

// The logistic-regression step with its weight gradient clipped to norm 1 by an ifelse on the
// gradient's norm, a value computed on the device each step (docs/control-flow.md). Node by
// node, reading that condition waits for the device once a step; a recorded call (conditional
// graph nodes) reads it on the device. Outputs stay there (device_result). Arg: cuda_graphs
// (1: auto; 0: off).
void BM_IfElseClippedStep(benchmark::State& state) {
  guarded(state, [&] {
    const bool graphs = state.range(0) != 0;
    constexpr int64_t N = 400, feats = 784;
    RandomState rng(22);
    Shared x = shared(rng.randn({N, feats}).astype(DType::Float32), "x");
    Shared y = shared(rng.randint(0, 2, {N}).astype(DType::Float32), "y");
    Shared w = shared(rng.randn({feats}).astype(DType::Float32), "w");
    Var p_1 = 1 / (1 + exp(-dot(x, w)));
    Var cost = mean(-y * log(p_1) - (1 - y) * log(1 - p_1));
    Var g = grad(cost, w);
    Var norm = sqrt(sum(sqr(g)));
    Var clipped = ifelse(norm > 1.0f, g / norm, g);
    Function train = function({}, {cost}, {{w, w - 0.01 * clipped}}, on_gpu("clipped", true, graphs));
    std::vector<Tensor> last;
    for (int i = 0; i < 50; ++i) last = train();
    sync_all(last);
    if (!std::isfinite(last[0].to_host().item<float>())) throw std::runtime_error("the clipped step's cost is not finite");
    std::vector<double> per_step;
    for (auto _ : state) {
      double s = time_batch(kSteps, [&] { last = train(); }, [&] { sync_all(last); }) / kSteps;
      state.SetIterationTime(s);
      per_step.push_back(s);
    }
    const double us = 1e6 * median(per_step);
    state.counters["us_per_step"] = us;
    state.SetLabel(fmt::format("{:.1f} us per step ({}){}", us, train.cuda_graph_status(), graphs_label(graphs)));
  });
}
BENCHMARK(BM_IfElseClippedStep)->Arg(1)->Arg(0)->Iterations(10)->UseManualTime()->Unit(benchmark::kMicrosecond);

// ---- 4: the fused chain against a device-to-device copy ----

constexpr int64_t kChainN = int64_t{1} << 26;
constexpr size_t kCopyBytes = size_t{1} << 28;

void BM_FusedChainVsDeviceCopy(benchmark::State& state) {
  guarded(state, [&] {
    RandomState rng(7);
    Tensor ha = rng.rand({kChainN}).astype(DType::Float32);
    Tensor hb = rng.rand({kChainN}).astype(DType::Float32);
    Tensor hc = rng.rand({kChainN}).astype(DType::Float32);
    Shared a = shared(ha, "a"), b = shared(hb, "b"), c = shared(hc, "c");
    Function f = function({}, {a * exp(-b) + c * tanh(a) - 0.5 * b * c}, {}, on_gpu("chain", true));
    std::vector<Tensor> last = f();  // moves a, b, c to the device
    if (last[0].on_host()) throw std::runtime_error("the chain's result came back to the host despite device_result");
    Tensor got = last[0].to_host();
    for (int64_t i : {int64_t{0}, kChainN / 3, kChainN - 1}) {
      double av = ha.data<float>()[i], bv = hb.data<float>()[i], cv = hc.data<float>()[i];
      expect_close(got.data<float>()[i], av * std::exp(-bv) + cv * std::tanh(av) - 0.5 * bv * cv, 1e-5,
                   "chain[" + std::to_string(i) + "]");
    }
    got = Tensor();
    for (int i = 0; i < 3; ++i) last = f();
    sync_all(last);

    DeviceBuffer src(kCopyBytes), dst(kCopyBytes);
    BaselineStream stream;
    GPU_BENCH_CUDA(cudaMemsetAsync(src.get(), 1, kCopyBytes, stream.get()));
    auto copy = [&] { GPU_BENCH_CUDA(cudaMemcpyAsync(dst.get(), src.get(), kCopyBytes, cudaMemcpyDeviceToDevice, stream.get())); };
    for (int i = 0; i < 3; ++i) copy();
    stream.sync();

    // Batches of about 7 ms (chain) and 10 ms (copy) on an H100: a sync's cost is noise.
    constexpr int kChainCalls = 20, kCopies = 50;
    std::vector<double> chain_s, copy_s;
    for (auto _ : state) {
      double s = time_batch(kChainCalls, [&] { last = f(); }, [&] { sync_all(last); }) / kChainCalls;
      state.SetIterationTime(s);
      chain_s.push_back(s);
      copy_s.push_back(time_batch(kCopies, copy, [&] { stream.sync(); }) / kCopies);
    }
    const double chain_gbs = 4.0 * 4 * kChainN / median(chain_s) / 1e9;   // 3 reads + 1 write of float32
    const double copy_gbs = 2.0 * kCopyBytes / median(copy_s) / 1e9;      // bytes read + written
    const double pct = 100 * chain_gbs / copy_gbs;
    state.counters["chain_GBps"] = chain_gbs;
    state.counters["copy_GBps"] = copy_gbs;
    state.counters["pct_of_copy"] = pct;
    state.counters["goal_pct"] = 93;
    state.SetLabel(fmt::format("2^26 float32: {:.0f} GB/s = {:.1f}% of the D2D copy's {:.0f} GB/s, goal >= 93%: {}",
                               chain_gbs, pct, copy_gbs, verdict(pct >= 93)));
  });
}
BENCHMARK(BM_FusedChainVsDeviceCopy)->Iterations(10)->UseManualTime()->Unit(benchmark::kMicrosecond);

// ---- 5: sum of squares of a 4000x4000 float32 matrix ----

void BM_SumOfSquares4000(benchmark::State& state) {
  guarded(state, [&] {
    constexpr int64_t n = 4000;
    RandomState rng(3);
    Tensor ha = rng.rand({n, n}).astype(DType::Float32);
    Shared a = shared(ha, "a");
    Function f = function({}, {sum(a * a)}, {}, on_gpu("sumsq", true));
    std::vector<Tensor> last = f();
    double want = 0;
    const float* as = ha.data<float>();
    for (int64_t i = 0; i < n * n; ++i) want += static_cast<double>(as[i]) * as[i];
    expect_close(last[0].to_host().item<double>(), want, 1e-4, "sum(a * a)");
    for (int i = 0; i < 20; ++i) last = f();
    sync_all(last);

    constexpr int kCalls = 100;
    std::vector<double> per_call;
    for (auto _ : state) {
      double s = time_batch(kCalls, [&] { last = f(); }, [&] { sync_all(last); }) / kCalls;
      state.SetIterationTime(s);
      per_call.push_back(s);
    }
    const double us = 1e6 * median(per_call);
    state.counters["us_per_call"] = us;
    state.counters["GBps"] = 4.0 * n * n / median(per_call) / 1e9;
    state.counters["goal_us"] = 20;
    state.SetLabel(fmt::format("{:.1f} us per call, goal < 20 us: {}", us, verdict(us < 20)));
  });
}
BENCHMARK(BM_SumOfSquares4000)->Iterations(20)->UseManualTime()->Unit(benchmark::kMicrosecond);

// ---- 6: sgemm 8192 against cublasSgemm called directly ----

// max |mine - theirs| / max |theirs| over two results of one product (on the host, in double).
double product_rel_diff(const Tensor& mine, const Tensor& theirs) {
  const std::vector<double> a = mine.to_host().to_vector<double>(), b = theirs.to_host().to_vector<double>();
  double max_diff = 0, max_abs = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    max_diff = std::max(max_diff, std::abs(a[i] - b[i]));
    max_abs = std::max(max_abs, std::abs(b[i]));
  }
  return max_diff / max_abs;
}

// Seconds per call of tgc's product and of the cuBLAS baseline, `calls` calls a batch, the
// two batches interleaved once per benchmark iteration (tgc's is the iteration's time).
struct ProductTimes {
  std::vector<double> tgc_s, cublas_s;
};
template <typename Tgc, typename TgcSync, typename Cublas, typename CublasSync>
ProductTimes time_products(benchmark::State& state, int calls, Tgc tgc, TgcSync tgc_sync, Cublas cublas,
                           CublasSync cublas_sync) {
  ProductTimes t;
  for (auto _ : state) {
    const double s = time_batch(calls, tgc, tgc_sync) / calls;
    state.SetIterationTime(s);
    t.tgc_s.push_back(s);
    t.cublas_s.push_back(time_batch(calls, cublas, cublas_sync) / calls);
  }
  return t;
}

void BM_Sgemm8192VsCublas(benchmark::State& state) {
  guarded(state, [&] {
    constexpr int64_t n = 8192;
    RandomState rng(5);
    Tensor hx = rng.rand({n, n}).astype(DType::Float32);
    Tensor hy = rng.rand({n, n}).astype(DType::Float32);
    Shared x = shared(hx, "x"), y = shared(hy, "y");
    Function f = function({}, {dot(x, y)}, {}, on_gpu("sgemm", true));
    std::vector<Tensor> last = f();
    sync_all(last);

    // cuBLAS as tgc calls it (float32 math, no TF32: tgc's cuda_tf32 defaults to off; the same
    // 32 MiB workspace); row-major C = X Y is column-major C^T = Y^T X^T.
    const size_t bytes = sizeof(float) * n * n;
    DeviceBuffer dx(bytes), dy(bytes), dc(bytes), workspace(32u << 20);
    BaselineStream stream;
    CublasHandle handle;
    GPU_BENCH_CUBLAS(cublasSetStream(handle.get(), stream.get()));
    GPU_BENCH_CUBLAS(cublasSetMathMode(handle.get(), CUBLAS_DEFAULT_MATH));
    GPU_BENCH_CUBLAS(cublasSetWorkspace(handle.get(), workspace.get(), 32u << 20));
    GPU_BENCH_CUDA(cudaMemcpy(dx.get(), hx.data<float>(), bytes, cudaMemcpyHostToDevice));
    GPU_BENCH_CUDA(cudaMemcpy(dy.get(), hy.data<float>(), bytes, cudaMemcpyHostToDevice));
    const float one = 1, zero = 0;
    const int ni = static_cast<int>(n);
    auto cublas = [&] {
      GPU_BENCH_CUBLAS(cublasSgemm(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, &one, dy.floats(), ni,
                                   dx.floats(), ni, &zero, dc.floats(), ni));
    };
    cublas();
    stream.sync();

    // Both compute the same product: the largest difference relative to the largest entry.
    double rel_diff = 0;
    {
      Tensor theirs = Tensor::empty(DType::Float32, {n, n});
      GPU_BENCH_CUDA(cudaMemcpy(theirs.raw_data(), dc.get(), bytes, cudaMemcpyDeviceToHost));
      rel_diff = product_rel_diff(last[0], theirs);
      if (!(rel_diff <= 1e-4))
        throw std::runtime_error(fmt::format("tgc's dot(x, y) differs from cublasSgemm's: max |diff| / max |c| = {:.2e}",
                                             rel_diff));
    }

    constexpr int kCalls = 3;  // about 20 ms each on an H100
    const auto [tgc_s, cublas_s] = time_products(state, kCalls, [&] { last = f(); }, [&] { sync_all(last); }, cublas,
                                                 [&] { stream.sync(); });
    const double flop = 2.0 * n * n * n, ratio = median(tgc_s) / median(cublas_s);
    state.counters["tgc_TFLOPs"] = flop / median(tgc_s) / 1e12;
    state.counters["cublas_TFLOPs"] = flop / median(cublas_s) / 1e12;
    state.counters["time_ratio"] = ratio;
    state.counters["rel_diff"] = rel_diff;
    state.counters["goal_ratio"] = 1.05;
    state.SetLabel(fmt::format("tgc {:.2f} ms, cuBLAS {:.2f} ms: {:.3f}x cuBLAS's time, goal <= 1.05x: {}",
                               1e3 * median(tgc_s), 1e3 * median(cublas_s), ratio, verdict(ratio <= 1.05)));
  });
}
BENCHMARK(BM_Sgemm8192VsCublas)->Iterations(5)->UseManualTime()->Unit(benchmark::kMillisecond);

// ---- 7b: a bfloat16 product 8192^3 (issue 29) beside cublasGemmEx on the same operands ----
//
// tgc's dot of two bfloat16 shared variables (cuBLASLt's tensor-core kernels with float32
// accumulation, docs/precision.md) against cuBLAS's GemmEx (CUDA_R_16BF operands and result,
// CUBLAS_COMPUTE_32F, the default algorithm choice). Goal: at least 70% of cuBLAS's throughput.

void BM_Bf16Gemm8192VsCublas(benchmark::State& state) {
  guarded(state, [&] {
    constexpr int64_t n = 8192;
    RandomState rng(5);
    Tensor hx = rng.uniform(-1, 1, {n, n}).astype(DType::BFloat16);
    Tensor hy = rng.uniform(-1, 1, {n, n}).astype(DType::BFloat16);
    Shared x = shared(hx, "x"), y = shared(hy, "y");
    Function f = function({}, {dot(x, y)}, {}, on_gpu("bf16gemm", true));
    std::vector<Tensor> last = f();
    sync_all(last);

    const size_t bytes = 2 * n * n;
    DeviceBuffer dx(bytes), dy(bytes), dc(bytes), workspace(32u << 20);
    BaselineStream stream;
    CublasHandle handle;
    GPU_BENCH_CUBLAS(cublasSetStream(handle.get(), stream.get()));
    GPU_BENCH_CUBLAS(cublasSetWorkspace(handle.get(), workspace.get(), 32u << 20));
    GPU_BENCH_CUDA(cudaMemcpy(dx.get(), hx.raw_data(), bytes, cudaMemcpyHostToDevice));
    GPU_BENCH_CUDA(cudaMemcpy(dy.get(), hy.raw_data(), bytes, cudaMemcpyHostToDevice));
    const float one = 1, zero = 0;
    const int ni = static_cast<int>(n);
    auto cublas = [&] {
      GPU_BENCH_CUBLAS(cublasGemmEx(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, &one, dy.get(), CUDA_R_16BF, ni,
                                    dx.get(), CUDA_R_16BF, ni, &zero, dc.get(), CUDA_R_16BF, ni, CUBLAS_COMPUTE_32F,
                                    CUBLAS_GEMM_DEFAULT));
    };
    cublas();
    stream.sync();

    // Both round the same float32 sums to bfloat16: they may differ by an ulp where the
    // summation orders differ. Compared relative to the largest entry.
    double rel_diff = 0;
    {
      Tensor theirs = Tensor::empty(DType::BFloat16, {n, n});
      GPU_BENCH_CUDA(cudaMemcpy(theirs.raw_data(), dc.get(), bytes, cudaMemcpyDeviceToHost));
      rel_diff = product_rel_diff(last[0], theirs);
      if (!(rel_diff <= 1e-2))
        throw std::runtime_error(fmt::format("tgc's bfloat16 dot(x, y) differs from cublasGemmEx's: {:.2e}", rel_diff));
    }

    constexpr int kCalls = 10;
    const auto [tgc_s, cublas_s] = time_products(state, kCalls, [&] { last = f(); }, [&] { sync_all(last); }, cublas,
                                                 [&] { stream.sync(); });
    const double flop = 2.0 * n * n * n, share = median(cublas_s) / median(tgc_s);
    state.counters["tgc_TFLOPs"] = flop / median(tgc_s) / 1e12;
    state.counters["cublas_TFLOPs"] = flop / median(cublas_s) / 1e12;
    state.counters["share_of_cublas"] = share;
    state.counters["rel_diff"] = rel_diff;
    state.SetLabel(fmt::format("tgc {:.3f} ms ({:.0f} TFLOP/s), cuBLAS GemmEx {:.3f} ms ({:.0f} TFLOP/s): {:.0f}% of "
                               "cuBLAS's throughput, goal >= 70%: {}",
                               1e3 * median(tgc_s), flop / median(tgc_s) / 1e12, 1e3 * median(cublas_s),
                               flop / median(cublas_s) / 1e12, 100 * share, verdict(share >= 0.7)));
  });
}
BENCHMARK(BM_Bf16Gemm8192VsCublas)->Iterations(5)->UseManualTime()->Unit(benchmark::kMillisecond);

// ---- 8: issue 19's networks, one SGD step per call, steps per second ----
//
// The graphs of benchmarks/compare/tgc_driver.cpp at their full sizes: the MLP 784-512-10 at
// batch 256, the MLP 784-4096-4096-10 at batch 4096 (matrix products), and the bag-of-words
// classifier (take of embedding rows, mean and max over the tokens, concatenate, dense; the
// table's gradient is a scatter-add). Data and parameters are float32 shared variables
// (tokens int32); outputs [loss, logits] stay on the device (device_result). Before timing,
// two steps on the GPU are checked against the same two steps on the host (device=cpu, the
// same graph from the same values): outputs and parameters within 1e-3 relative.

struct NetGraph {
  std::vector<Var> outputs;
  Updates updates;
  std::vector<Shared> params;
};

enum class Net { Mlp, BigMlp, BagOfWords };

struct NetSpec {
  const char* name;
  int steps;  // calls per timed batch
  std::map<std::string, Tensor> values;  // initial data and parameters (host)
};

Tensor one_hot(const Tensor& labels, int64_t classes) {
  const int64_t n = labels.shape()[0];
  std::vector<float> v(static_cast<size_t>(n * classes), 0.0f);
  const int64_t* l = labels.data<int64_t>();
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i * classes + l[i])] = 1.0f;
  return Tensor::from_vector(v, Shape{n, classes});
}

NetSpec net_spec(Net net) {
  NetSpec spec;
  auto f32 = [](const Tensor& t) { return t.astype(DType::Float32); };
  if (net == Net::Mlp || net == Net::BigMlp) {
    const bool big = net == Net::BigMlp;
    const int64_t batch = big ? 4096 : 256;
    const std::vector<int64_t> widths = big ? std::vector<int64_t>{784, 4096, 4096, 10} : std::vector<int64_t>{784, 512, 10};
    RandomState rng(big ? 7 : 6);
    spec = {big ? "MLP 784-4096-4096-10, batch 4096" : "MLP 784-512-10, batch 256", big ? 10 : 200, {}};
    spec.values["x"] = f32(rng.randn({batch, 784}));
    spec.values["y1h"] = one_hot(rng.randint(0, 10, {batch}), 10);
    for (size_t i = 1; i < widths.size(); ++i) {
      const double scale = std::sqrt(2.0 / static_cast<double>(widths[i - 1]));  // He initialisation
      spec.values["w" + std::to_string(i)] = f32(rng.normal(0.0, scale, {widths[i - 1], widths[i]}));
      spec.values["b" + std::to_string(i)] = Tensor::zeros(DType::Float32, {widths[i]});
    }
    return spec;
  }
  constexpr int64_t vocab = 50000, dim = 256, batch = 512, tokens = 16, classes = 20;
  RandomState rng(8);
  spec = {"bag of words, vocabulary 50000, embedding 256, batch 512x16", 50, {}};
  spec.values["tokens"] = rng.randint(0, vocab, {batch, tokens}, DType::Int32);
  spec.values["y1h"] = one_hot(rng.randint(0, classes, {batch}), classes);
  spec.values["emb"] = f32(rng.normal(0.0, 0.1, {vocab, dim}));
  spec.values["w"] = f32(rng.normal(0.0, 0.05, {2 * dim, classes}));
  spec.values["b"] = Tensor::zeros(DType::Float32, {classes});
  return spec;
}

// The network's graph over fresh shared variables holding copies of spec's values.
NetGraph net_graph(Net net, const NetSpec& spec) {
  auto in = [&](const std::string& name) { return shared(spec.values.at(name), name); };
  NetGraph g;
  Var logits;
  Shared y1h = in("y1h");
  if (net == Net::BagOfWords) {
    Shared tokens = in("tokens"), emb = in("emb"), w = in("w"), b = in("b");
    Var rows = take(emb, tokens, 0);
    logits = dot(concatenate({mean(rows, 1), max(rows, 1)}, 1), w) + b;
    g.params = {emb, w, b};
  } else {
    const int layers = net == Net::Mlp ? 2 : 3;
    Var a = in("x");
    for (int i = 1; i <= layers; ++i) {
      Shared w = in("w" + std::to_string(i)), b = in("b" + std::to_string(i));
      g.params.insert(g.params.end(), {w, b});
      a = i < layers ? maximum(dot(a, w) + b, 0.0) : dot(a, w) + b;
    }
    logits = a;
  }
  Var loss = -mean(sum(y1h * log_softmax(logits), 1));
  std::vector<Var> grads = grad(loss, std::vector<Var>(g.params.begin(), g.params.end()));
  for (size_t i = 0; i < g.params.size(); ++i) g.updates.push_back({g.params[i], g.params[i] - 0.1 * grads[i]});
  g.outputs = {loss, logits};
  return g;
}

// max |a - b| / max |b| over the tensors (on the host, in double).
double rel_diff(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  double worst = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    Tensor x = a[k].to_host().astype(DType::Float64), y = b[k].to_host().astype(DType::Float64);
    if (x.shape() != y.shape()) throw std::runtime_error("a network's GPU and host results differ in shape");
    const double *xs = x.data<double>(), *ys = y.data<double>();
    double diff = 0, scale = 1e-30;
    for (int64_t i = 0; i < x.numel(); ++i) {
      diff = std::max(diff, std::abs(xs[i] - ys[i]));
      scale = std::max(scale, std::abs(ys[i]));
    }
    if (std::isnan(diff)) return diff;
    worst = std::max(worst, diff / scale);
  }
  return worst;
}

std::vector<Tensor> values_of(const std::vector<Shared>& params) {
  std::vector<Tensor> v;
  for (const Shared& p : params) v.push_back(p.get_value());
  return v;
}

// `mixed`: config mixed_precision for both the GPU and the host step ("" none). Under it the
// two round each product to the half type, where near ties may round apart: 3e-2 then.
void time_network(benchmark::State& state, Net net, const std::string& mixed = "") {
  const NetSpec spec = net_spec(net);
  const std::string name = net == Net::Mlp ? "mlp" : net == Net::BigMlp ? "bigmlp" : "bow";
  NetGraph gpu = net_graph(net, spec), host = net_graph(net, spec);
  FunctionOptions gpu_options = on_gpu(name, true), host_options{.name = name + "_host"};
  if (!mixed.empty()) gpu_options.config["mixed_precision"] = host_options.config["mixed_precision"] = mixed;
  const double tolerance = mixed.empty() ? 1e-3 : 3e-2;
  Function step = function({}, gpu.outputs, gpu.updates, gpu_options);
  Function host_step = function({}, host.outputs, host.updates, host_options);
  std::vector<Tensor> last, host_last;
  for (int i = 0; i < 2; ++i) {
    last = step();
    host_last = host_step();
  }
  // Where an op of the step still runs on the host (take, inc_subtensor, concatenate and
  // log_softmax may), an output can come back on the host: reported, not an error.
  const bool on_device = !last[0].on_host() && !last[1].on_host();
  const double out_diff = rel_diff(last, host_last);
  const double param_diff = rel_diff(values_of(gpu.params), values_of(host.params));
  if (!(out_diff <= tolerance && param_diff <= tolerance))
    throw std::runtime_error(fmt::format("{}: after 2 steps the GPU differs from the host: outputs {:.2e}, "
                                         "parameters {:.2e} (tolerance {:.0e})",
                                         name, out_diff, param_diff, tolerance));
  for (int i = 0; i < 3; ++i) last = step();  // warm-up
  sync_all(last);

  std::vector<double> per_step;
  for (auto _ : state) {
    double s = time_batch(spec.steps, [&] { last = step(); }, [&] { sync_all(last); }) / spec.steps;
    state.SetIterationTime(s);
    per_step.push_back(s);
  }
  const double t = median(per_step);
  state.counters["steps_per_s"] = 1 / t;
  state.counters["ms_per_step"] = 1e3 * t;
  state.counters["rel_diff_host"] = std::max(out_diff, param_diff);
  state.counters["outputs_on_device"] = on_device ? 1 : 0;
  state.counters["graph_replays"] = step.cuda_graph_replays();
  state.SetLabel(fmt::format("{}{}: {:.1f} steps/s ({:.3f} ms per step), device_result ({}); GPU = host within {:.1e}; "
                             "CUDA graphs: {}",
                             spec.name, mixed.empty() ? "" : ", mixed_precision=" + mixed, 1 / t, 1e3 * t, on_device ? "outputs on the device" : "an output came back on the host",
                             std::max(out_diff, param_diff), step.cuda_graph_status()));
}

void BM_MlpTrainStep(benchmark::State& state) {
  guarded(state, [&] { time_network(state, Net::Mlp); });
}
BENCHMARK(BM_MlpTrainStep)->Iterations(5)->UseManualTime()->Unit(benchmark::kMillisecond);

// The same step with mixed_precision=bfloat16: where issue 19's 30 us goal stands once the
// five products run on tensor cores (their float32 kernels alone take 39.5 us: docs/gpu.md).
void BM_MlpTrainStepBf16(benchmark::State& state) {
  guarded(state, [&] { time_network(state, Net::Mlp, "bfloat16"); });
}
BENCHMARK(BM_MlpTrainStepBf16)->Iterations(5)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_BigMlpTrainStep(benchmark::State& state) {
  guarded(state, [&] { time_network(state, Net::BigMlp); });
}
BENCHMARK(BM_BigMlpTrainStep)->Iterations(5)->UseManualTime()->Unit(benchmark::kMillisecond);

// The same step with mixed_precision=bfloat16 (issue 29): bfloat16 products on tensor cores,
// float32 parameters and updates. Peers: benchmarks/precision/peers.py (torch.autocast, JAX).
void BM_BigMlpTrainStepBf16(benchmark::State& state) {
  guarded(state, [&] { time_network(state, Net::BigMlp, "bfloat16"); });
}
BENCHMARK(BM_BigMlpTrainStepBf16)->Iterations(5)->UseManualTime()->Unit(benchmark::kMillisecond);

// mixed_precision=float16: float16 products and dynamic loss scaling (the scale, the finite
// check and the skip in the step's graph).
void BM_BigMlpTrainStepF16(benchmark::State& state) {
  guarded(state, [&] { time_network(state, Net::BigMlp, "float16"); });
}
BENCHMARK(BM_BigMlpTrainStepF16)->Iterations(5)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_BagOfWordsTrainStep(benchmark::State& state) {
  guarded(state, [&] { time_network(state, Net::BagOfWords); });
}
BENCHMARK(BM_BagOfWordsTrainStep)->Iterations(5)->UseManualTime()->Unit(benchmark::kMillisecond);

// ---- 7: cold and warm compile of the logistic regression ----
//
// Both run in a child process (this binary with --warm-start DIR), because the kernel cache
// also lives in memory for the process's lifetime: in this process the logistic regression's
// kernels are already compiled (BM_LogregTrainStep), and no API clears them. The child creates
// the CUDA context first (the driver's cost, paid by any CUDA program: reported, not counted),
// then times function() alone, as benchmarks/compare does. An empty DIR makes it a cold
// compile; the same DIR again, a warm start from the disk cache.

struct ChildTimes {
  double compile_s = 0, context_s = 0;
};

int warm_start_child(const std::string& dir) {
  try {
    auto start = Clock::now();
    GPU_BENCH_CUDA(cudaSetDevice(0));
    GPU_BENCH_CUDA(cudaFree(nullptr));  // creates the device's primary context, which libtgc shares
    const double context_s = seconds_since(start);
    LogregGraph g = logreg_graph();
    FunctionOptions opts = on_gpu("train");
    opts.config["cache_dir"] = dir;
    start = Clock::now();
    Function train = function({}, g.outputs, g.updates, opts);
    const double compile_s = seconds_since(start);
    sync_all(train());  // a compile that made unusable kernels fails here, not as a fast time
    std::printf("compile_s=%.9f context_s=%.9f\n", compile_s, context_s);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_bench --warm-start %s: %s\n", dir.c_str(), e.what());
    return 2;
  }
}

ChildTimes run_child(const fs::path& cache_dir) {
  const std::string exe = fs::read_symlink("/proc/self/exe").string();
  if (exe.find('\'') != std::string::npos || cache_dir.string().find('\'') != std::string::npos)
    throw std::runtime_error("gpu_bench: a path holds a single quote; move the binary or set TMPDIR elsewhere");
  const std::string cmd = "'" + exe + "' --warm-start '" + cache_dir.string() + "'";
  std::FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) throw std::runtime_error("popen failed for: " + cmd);
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe)) out += buf;
  const int status = pclose(pipe);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("the compile child failed: " + cmd + " (its error is on stderr above)");
  ChildTimes t;
  if (std::sscanf(out.c_str(), "compile_s=%lf context_s=%lf", &t.compile_s, &t.context_s) != 2)
    throw std::runtime_error("unexpected output from " + cmd + ": " + out);
  return t;
}

// A fresh folder under the system's temporary directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "tgc-gpu-bench-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed under " + fs::temp_directory_path().string());
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void BM_LogregCompileColdWarm(benchmark::State& state) {
  guarded(state, [&] {
    TempDir tmp;
    std::vector<double> cold, warm, context;
    int rep = 0;
    for (auto _ : state) {
      const fs::path cache = tmp.path() / ("cache-" + std::to_string(rep++));
      fs::create_directories(cache);  // fresh and empty: a cold compile
      ChildTimes c = run_child(cache);
      if (fs::is_empty(cache)) throw std::runtime_error("the cold compile wrote nothing to cache_dir " + cache.string());
      ChildTimes w = run_child(cache);
      state.SetIterationTime(c.compile_s);
      cold.push_back(c.compile_s);
      warm.push_back(w.compile_s);
      context.push_back(w.context_s);
    }
    const double cold_ms = 1e3 * median(cold), warm_ms = 1e3 * median(warm);
    state.counters["cold_ms"] = cold_ms;
    state.counters["warm_ms"] = warm_ms;
    state.counters["context_ms"] = 1e3 * median(context);
    state.SetLabel(fmt::format("cold {:.0f} ms (goal < 500 ms: {}), warm {:.1f} ms (goal < 50 ms: {}); "
                               "CUDA context creation ({:.0f} ms) not counted",
                               cold_ms, verdict(cold_ms < 500), warm_ms, verdict(warm_ms < 50), 1e3 * median(context)));
  });
}
BENCHMARK(BM_LogregCompileColdWarm)->Iterations(3)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--warm-start") return warm_start_child(argv[2]);

  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    // cudart reports a missing driver as "insufficient driver": say which it is.
    const std::string why = err == cudaErrorInsufficientDriver
                                ? "no NVIDIA driver, or one older than this CUDA runtime"
                                : err != cudaSuccess ? cudaGetErrorString(err) : "the driver found no device";
    std::printf("gpu_bench: skipped: no usable CUDA device (%s); run it on a machine with an NVIDIA GPU "
                "(docs/performance.md, \"GPU benchmarks\").\n",
                why.c_str());
    return 0;
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    std::fprintf(stderr, "gpu_bench: cudaGetDeviceProperties(0) failed\n");
    return 1;
  }
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  const std::string gpu = fmt::format("{} (sm_{}{}, {} SMs, {:.1f} GiB; driver CUDA {}.{}, runtime {}.{})", prop.name,
                                      prop.major, prop.minor, prop.multiProcessorCount,
                                      static_cast<double>(prop.totalGlobalMem) / (1u << 30), driver / 1000,
                                      driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
  std::printf("GPU 0: %s\n", gpu.c_str());
  std::fflush(stdout);
  benchmark::AddCustomContext("gpu", gpu);

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
