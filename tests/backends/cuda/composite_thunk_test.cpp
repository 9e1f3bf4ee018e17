// Fused kernels on a real GPU (label gpu), against the same graphs on the cpu: elementwise
// over contiguous, strided and broadcast operands, reductions of every kind, identical
// results run to run, long reductions combining in one launch. (The interpreter fallback and
// errors flagged by kernels: tests/backends/gpu/composite_thunk_test.cpp, on every API.)
#include "backends/gpu/composite_thunk.h"

#include <gtest/gtest.h>

#include "cuda_test_util.h"

namespace tgc {
namespace {

using cuda_test::expect_cuda_matches_cpu;

Tensor uniform(const Shape& shape, DType dtype, uint64_t seed, double lo = -2, double hi = 2) {
  RandomState rng(seed);
  Tensor t = rng.rand(shape);
  std::vector<double> v = t.to_vector<double>();
  for (double& x : v) x = lo + (hi - lo) * x;
  return Tensor::from_vector(v, shape).astype(dtype);
}

TEST(CudaComposite, ElementwiseChainContiguous) {
  TGC_REQUIRE_CUDA();
  for (DType dt : {DType::Float32, DType::Float64}) {
    Var a = vector("a", dt), b = vector("b", dt), c = vector("c", dt);
    Var out = a * exp(-b) + c * tanh(a) - 0.5 * b * c;
    const int64_t n = 100003;  // not a multiple of any vector width: tails are exercised
    expect_cuda_matches_cpu({a, b, c}, {out}, {uniform({n}, dt, 1), uniform({n}, dt, 2), uniform({n}, dt, 3)},
                            dt == DType::Float32 ? 2e-6 : 1e-13, 1e-6);
  }
}

TEST(CudaComposite, ElementwiseStridedAndBroadcast) {
  TGC_REQUIRE_CUDA();
  Var x = matrix("x", DType::Float32), row = vector("row", DType::Float32), col = vector("col", DType::Float32);
  // x.T is a strided view on the device; row and col broadcast along different axes.
  Var out = exp(x.T()) * row + col.dimshuffle({0, -1}) * 2.0;
  expect_cuda_matches_cpu({x, row, col}, {out},
                          {uniform({301, 257}, DType::Float32, 4), uniform({301}, DType::Float32, 5),
                           uniform({257}, DType::Float32, 6)},
                          2e-6);
}

TEST(CudaComposite, ElementwiseIntegerAndMixed) {
  TGC_REQUIRE_CUDA();
  Var i = vector("i", DType::Int32), f = vector("f", DType::Float32);
  Var out = (i * 3 + 1) % 7;
  Var mixed = f * i;  // int32 with float32 gives float32
  RandomState rng(7);
  Tensor ints = rng.randint(-1000, 1000, {5000}, DType::Int32);
  auto got = expect_cuda_matches_cpu({i, f}, {out, mixed}, {ints, uniform({5000}, DType::Float32, 8)}, 0, 0);
  EXPECT_EQ(got[0].dtype(), DType::Int32);
}

TEST(CudaComposite, ReductionsOfEveryKind) {
  TGC_REQUIRE_CUDA();
  Var x = matrix("x", DType::Float32);
  Tensor arg = uniform({513, 1031}, DType::Float32, 9, 0.5, 1.5);
  struct Case {
    const char* what;
    Var out;
    double rtol;
  };
  std::vector<Case> cases = {
      {"sum all", x.sum(), 1e-5},           {"sum axis 0", x.sum(0), 1e-5},
      {"sum axis 1", x.sum(1), 1e-5},       {"sum keepdims", x.sum(1, true), 1e-5},
      {"max all", x.max(), 0},              {"min axis 0", x.min(0), 0},
      {"max axis 1", x.max(1), 0},          {"mean all", x.mean(), 1e-5},
      {"mean axis 0", x.mean(0), 1e-5},     {"prod axis 0 (of 513 values near 1)", (x * 0.001 + 1.0).prod(0), 1e-5},
      {"sum of squares", (x * x).sum(), 1e-5}, {"softmax-like", exp(x - x.max(1, true)).sum(1), 1e-5},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    expect_cuda_matches_cpu({x}, {c.out}, {arg}, c.rtol, 1e-6);
  }
  // float64 and integers
  Var d = matrix("d", DType::Float64);
  expect_cuda_matches_cpu({d}, {d.sum(0), d.sum()}, {uniform({700, 33}, DType::Float64, 10)}, 1e-12, 1e-12);
  Var i = matrix("i", DType::Int64);
  RandomState rng(11);
  expect_cuda_matches_cpu({i}, {i.sum(1), i.max(0), i.min()}, {rng.randint(-50, 50, {97, 301}, DType::Int64)}, 0, 0);
}

TEST(CudaComposite, ReductionsAreIdenticalRunToRun) {
  TGC_REQUIRE_CUDA();
  Var x = vector("x", DType::Float32);
  Var m = matrix("m", DType::Float32);
  Function f = function({x, m}, {(x * x).sum(), m.sum(0), m.sum(1)}, {}, cuda_test::on("cuda"));
  Tensor xs = uniform({10'000'019}, DType::Float32, 12);
  Tensor ms = uniform({2049, 4099}, DType::Float32, 13);
  std::vector<Tensor> first = f(xs, ms);
  for (int run = 0; run < 5; ++run) {
    std::vector<Tensor> again = f(xs, ms);
    for (size_t k = 0; k < first.size(); ++k)
      EXPECT_TRUE(tensors_equal(again[k], first[k])) << "output " << k << " differs on run " << run + 2 << ": "
                                                     << cuda_test::diff_report(again[k], first[k]);
  }
}

// Long reductions with few outputs run in one launch whose last block per output combines
// the partials and zeroes that output's ticket (kernel_render.h, LongReduction). Every call
// gets fresh values, so a ticket left behind by one launch shows as a wrong result in the
// next (no block would combine); calls after the first replay a CUDA graph. Two reductions
// of three long rows share one kernel: three tickets, two partials per chunk.
TEST(CudaComposite, LongReductionsCombineInOneLaunchCallAfterCall) {
  TGC_REQUIRE_CUDA();
  Var m = matrix("m", DType::Float32);
  Var v = vector("v", DType::Float32);
  const std::vector<Var> outs = {(m * m).sum(1), m.max(1), v.mean()};
  Function fg = function({m, v}, outs, {}, cuda_test::on("cuda"));
  Function fc = function({m, v}, outs, {}, cuda_test::on("cpu"));
  for (uint64_t call = 0; call < 6; ++call) {
    SCOPED_TRACE("call " + std::to_string(call + 1));
    const std::vector<Tensor> args = {uniform({3, 300'007}, DType::Float32, 40 + call),
                                      uniform({1'000'003}, DType::Float32, 50 + call, call, call + 1.0)};
    std::vector<Tensor> got = fg(args), want = fc(args);
    for (size_t k = 0; k < outs.size(); ++k)
      EXPECT_TRUE(tensors_allclose(got[k], want[k], 1e-5, 1e-6))
          << "output " << k << ": " << cuda_test::diff_report(got[k], want[k]);
  }
}

}  // namespace
}  // namespace tgc
