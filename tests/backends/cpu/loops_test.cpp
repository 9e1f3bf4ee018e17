// The loop paths of rendered elementwise kernels: contiguous (the unit-stride inner loop),
// broadcast (stride-0 operands along the inner dim), strided and negative-stride views (the
// strided inner loop), multiple outputs, empty tensors, and shapes outside the fast path
// (the interpreter's general path).
#include <gtest/gtest.h>

#include "cpu_test_util.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using test::expect_llvm_matches_graph;
using test::random_tensor;

// Graphs with exp/tanh of float32 values compute those in float (float32_math=float32): each
// within a few float32 ulps of the reference (float32_math.h), and the sums after them carry
// the difference along, relative to the terms (up to ~12 here), not to a result that cancels
// to near zero: hence an absolute part of a few ulps of 12.
constexpr double kFloat32MathChain = 1e-6, kFloat32MathChainAbs = 4e-6;

TEST(CpuLoops, ContiguousChainLongEnoughForVectorsAndThreads) {
  Var a = vector("a"), b = vector("b"), c = vector("c");
  const int64_t n = 100003;  // above the threading grain, odd
  expect_llvm_matches_graph({a, b, c}, {a * exp(-b) + c * tanh(a) - 0.5 * b * c},
                            {random_tensor({n}, DType::Float32, 1), random_tensor({n}, DType::Float32, 2),
                             random_tensor({n}, DType::Float32, 3)},
                            kFloat32MathChain, {}, {}, kFloat32MathChainAbs);
}

TEST(CpuLoops, BroadcastRowsColumnsAndScalars) {
  Var v = vector("v"), m = matrix("m"), s = scalar("s"), col = tensor("col", DType::Float32, {-1, 1});
  expect_llvm_matches_graph({v, m, s, col}, {(v + m) * s - col, m * 2.0 + v},
                            {random_tensor({7}, DType::Float32, 4), random_tensor({5, 7}, DType::Float32, 5),
                             random_tensor({}, DType::Float32, 6), random_tensor({5, 1}, DType::Float32, 7)});
}

TEST(CpuLoops, StridedAndReversedViews) {
  Var m = matrix("m", DType::Float64), n = matrix("n", DType::Float64);
  Tensor base = random_tensor({6, 9}, DType::Float64, 8);
  expect_llvm_matches_graph({m, n}, {m * n + 1.0, m - n},
                            {base.transpose(), test::flip_view(random_tensor({9, 6}, DType::Float64, 9), 1)});
  expect_llvm_matches_graph({m, n}, {m / n},
                            {test::slice_view(base, 1, 0, 9, 2), test::fortran_layout(random_tensor({6, 5}, DType::Float64, 10))});
}

TEST(CpuLoops, ThreeDimensionalWithMixedDtypes) {
  Var x = tensor3("x", DType::Int16), y = tensor3("y"), z = matrix("z", DType::UInt8);
  expect_llvm_matches_graph({x, y, z}, {x * y + z, (x > z) & (y < 0.5), x + z},
                            {random_tensor({3, 4, 5}, DType::Int16, 11), random_tensor({3, 4, 5}, DType::Float32, 12),
                             random_tensor({4, 5}, DType::UInt8, 13)});
}

TEST(CpuLoops, EmptyTensors) {
  Var m = matrix("m"), v = vector("v");
  expect_llvm_matches_graph({m, v}, {exp(m) + v}, {random_tensor({0, 4}, DType::Float32, 14), random_tensor({4}, DType::Float32, 15)});
}

TEST(CpuLoops, RunTimeBroadcastLeavesTheFastPathToTheInterpreter) {
  Var v = vector("v"), m = matrix("m");
  // m is (1, 5) at run time: v * m broadcasts inside the kernel's group.
  expect_llvm_matches_graph({v, m}, {tanh(v * m) + 1.0},
                            {random_tensor({5}, DType::Float32, 16), random_tensor({1, 5}, DType::Float32, 17)},
                            kFloat32MathChain, {}, {}, kFloat32MathChainAbs);
}

TEST(CpuLoops, RepeatedCallsGiveIdenticalResults) {
  Var a = vector("a");
  test::WholeGroup w = test::whole_group({a}, {exp(a) * a + 1.0});
  LoweredGroup lowered = lower_group(w.group);
  std::vector<Tensor> args{random_tensor({200001}, DType::Float32, 18)};
  Tensor first = test::run_llvm(lowered.kernel, args)[0];
  Tensor second = test::run_llvm(lowered.kernel, args)[0];
  EXPECT_TRUE(test::same_values(first, second));
}

}  // namespace
}  // namespace tgc
