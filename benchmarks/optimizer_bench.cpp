// Optimizer time: the fast_run pipeline on the tutorial's logistic regression with its
// gradients (target: well under 50 ms) and on generated graphs of about 1k, 5k and 10k nodes
// (target: 10k under 2 s, growing about linearly). The reported time is the optimizer's
// (the sum of Function::optimizer_timings()); counters give the whole compile and the sizes.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>

#include <tgc/tgc.h>

#include "ops/core/graph.h"

namespace {

using namespace tgc;

double optimizer_seconds(const Function& f) {
  double s = 0;
  for (const auto& [name, seconds] : f.optimizer_timings()) s += seconds;
  return s;
}

// What function() is given.
struct Spec {
  std::vector<Var> inputs, outputs;
  Updates updates;
};

// Builds `make()`'s expressions and compiles them once per iteration; the iteration's time is
// the optimizer's, compile_ms the whole of function() (clone, optimize, link).
template <typename Make>
void time_optimizer(benchmark::State& state, Make make) {
  double compile = 0;
  size_t before = 0, after = 0;
  std::map<std::string, double> per_pass;  // milliseconds, summed over iterations
  for (auto _ : state) {
    state.PauseTiming();
    Spec spec = make();
    state.ResumeTiming();
    auto t0 = std::chrono::steady_clock::now();
    Function f = function(spec.inputs, spec.outputs, spec.updates);
    compile += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(optimizer_seconds(f));
    for (const auto& [name, seconds] : f.optimizer_timings()) per_pass[name] += 1e3 * seconds;
    before = f.raw_graph().toposort().size();
    after = f.graph().toposort().size();
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["compile_ms"] = benchmark::Counter(1e3 * compile / n);
  // Where the optimizer's time goes, for the passes that take a noticeable share.
  double total = 0;
  for (const auto& [name, ms] : per_pass) total += ms;
  for (const auto& [name, ms] : per_pass)
    if (ms >= 0.05 * total) state.counters[name + "_ms"] = ms / n;
  state.counters["nodes"] = static_cast<double>(before);
  state.counters["nodes_after"] = static_cast<double>(after);
}

void BM_OptimizeLogisticRegression(benchmark::State& state) {
  time_optimizer(state, [] {
    RandomState rng(22);
    Var x = matrix("x"), y = vector("y");
    Shared w = shared(rng.randn({784}).astype(floatX()), "w");
    Shared b = shared(Tensor::full(floatX(), {}, 0.0), "b");
    Var z = dot(x, w) + b;
    Var p_1 = 1 / (1 + exp(-z));
    Var prediction = p_1 > 0.5;
    Var xent = -y * log(p_1) - (1 - y) * log(1 - p_1);
    Var cost = mean(xent) + 0.01 * sum(pow(w, 2));
    std::vector<Var> g = grad(cost, {w, b});
    return Spec{{x, y}, {prediction, xent}, {{w, w - 0.01 * g[0]}, {b, b - 0.01 * g[1]}}};
  });
}
BENCHMARK(BM_OptimizeLogisticRegression)->UseManualTime()->Unit(benchmark::kMillisecond);

// A deterministic generated graph of about `target` nodes over 16x16 float32 matrices: a
// pool of values, each step one of unary math, binary math, a scaled sum, a matrix product,
// a transpose or a row reduction broadcast back, on recent values; every value no step read
// is added into the output, so no node is dead. The counters report the graph's real size.
Spec generated(int64_t target) {
  Var x = tensor("x", DType::Float32, {16, 16});
  Shared w = shared(Tensor::full(DType::Float32, {16, 16}, 0.01), "w");
  std::vector<Var> pool{x, w};
  std::vector<char> read{0, 0};
  uint64_t state = 12345;
  auto next = [&](uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  };
  auto pick = [&] {
    size_t i = pool.size() - 1 - next(std::min<uint64_t>(pool.size(), 8));
    read[i] = 1;
    return pool[i];
  };
  auto output = [&] {
    Var out = pool.back();
    for (size_t i = 2; i + 1 < pool.size(); ++i)
      if (!read[i]) out = out + pool[i];
    return sum(out);
  };
  // Grow in rounds, counting the graph's nodes after each, until it has `target`.
  for (size_t nodes = 0; static_cast<int64_t>(nodes) < target;) {
    for (int64_t step = 0; step < std::max<int64_t>((target - static_cast<int64_t>(nodes)) / 4, 1); ++step) {
      Var a = pick(), b = pick();
      Var v;
      switch (next(7)) {
        case 0: v = tanh(a); break;
        case 1: v = exp(a * 0.01f); break;
        case 2: v = a * b + a; break;
        case 3: v = a - 0.5f * b; break;
        case 4: v = dot(a, b) * 0.1f + a; break;
        case 5: v = a.T() + b; break;
        default: v = a - sum(a, {1}, true) / 16.0f; break;
      }
      pool.push_back(v);
      read.push_back(0);
    }
    nodes = Graph::clone_of({x.ptr()}, {output().ptr()}).toposort().size();
  }
  return Spec{{x}, {output()}, {}};
}

void BM_OptimizeGeneratedGraph(benchmark::State& state) {
  time_optimizer(state, [&] { return generated(state.range(0)); });
}
BENCHMARK(BM_OptimizeGeneratedGraph)->Arg(1000)->Arg(5000)->Arg(10000)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
