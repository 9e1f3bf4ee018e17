// The cost of one call of a small function on the calling thread, where the per-call work
// around the thunks (argument checks, slots, shared-variable binding, locks, updates) is most
// of the time: a pure function, one that reads a shared variable, one that updates it. Run it
// before and after a change to Function::operator() to see what the change costs.
//
//   build/benchmarks/call_overhead_bench --benchmark_repetitions=5
#include <benchmark/benchmark.h>

#include <vector>

#include <tgc/tgc.h>

namespace {

using namespace tgc;

// Arg: 0 = pure (x * 2 + 1), 1 = reads a shared variable (x * w + 1), 2 = also updates it
// (w <- w + x, written in place).
void BM_SmallCall(benchmark::State& state) {
  const int kind = static_cast<int>(state.range(0));
  Var x = vector("x", DType::Float32);
  Shared w = shared(Tensor::full(DType::Float32, {16}, 1.0), "w");
  Function f = kind == 0   ? function({x}, {x * 2.0 + 1.0})
               : kind == 1 ? function({x}, {x * w + 1.0})
                           : function({x}, {x * w + 1.0}, {{w, w + x}});
  Tensor arg = Tensor::full(DType::Float32, {16}, 0.0);
  for (auto _ : state) benchmark::DoNotOptimize(f(arg));
  state.SetLabel(kind == 0 ? "pure" : kind == 1 ? "reads a shared variable" : "updates a shared variable");
}
BENCHMARK(BM_SmallCall)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
