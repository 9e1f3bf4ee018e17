// The tutorial workloads through compiled functions: one call of check1 (exp over 230400
// float32), the sum of squares of a 4000x4000 float32 matrix, and a 784-wide matrix-vector
// product (BLAS).
#include <benchmark/benchmark.h>

#include <tgc/tgc.h>

namespace {

using namespace tgc;

void BM_Check1Call(benchmark::State& state) {
  RandomState rng(22);
  Shared x = shared(rng.rand({230400}).astype(DType::Float32), "x");
  Function f = function({}, {exp(x)}, {}, {.config = {{"allow_gc", state.range(0) ? "true" : "false"}}});
  for (auto _ : state) benchmark::DoNotOptimize(f());
  state.SetBytesProcessed(state.iterations() * 230400 * 4 * 2);
  state.SetLabel(state.range(0) ? "allow_gc=true" : "allow_gc=false");
}
BENCHMARK(BM_Check1Call)->Arg(1)->Arg(0)->Unit(benchmark::kMicrosecond);

void BM_SumOfSquares4000(benchmark::State& state) {
  Var a = matrix("a", DType::Float32);
  Function f = function({a}, {sum(a * a)});
  Tensor ones = Tensor::full(DType::Float32, {4000, 4000}, 1.0);
  for (auto _ : state) benchmark::DoNotOptimize(f(ones));
  state.SetBytesProcessed(state.iterations() * 4000 * 4000 * 4);
}
BENCHMARK(BM_SumOfSquares4000)->Unit(benchmark::kMillisecond);

void BM_DotMatrixVector(benchmark::State& state) {
  RandomState rng(1);
  Var x = matrix("x", DType::Float32);
  Shared w = shared(rng.randn({784}).astype(DType::Float32), "w");
  Function f = function({x}, {dot(x, w)});
  Tensor data = rng.randn({400, 784}).astype(DType::Float32);
  for (auto _ : state) benchmark::DoNotOptimize(f(data));
  state.SetItemsProcessed(state.iterations() * 400 * 784 * 2);
}
BENCHMARK(BM_DotMatrixVector)->Unit(benchmark::kMicrosecond);

}  // namespace
