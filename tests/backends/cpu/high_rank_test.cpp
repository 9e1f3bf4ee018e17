// Kernels of high rank: the rendered loop nest stays at most kMaxRenderedDims deep per group
// whatever the rank (compile time stays flat: rank 64 compiles in well under a second), and
// the dims a call keeps after collapsing beyond those run as the launcher's lead dims
// (elementwise and kept dims, also split across threads) or through the interpreter (reduced
// dims); every result is compared with the unfused graph's reference evaluation.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>

#include "backends/cpu/kernel_abi.h"
#include "cpu_test_util.h"
#include "runtime/cpu_team.h"
#include "runtime/rank_limit.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace tgc {
namespace {

using test::expect_llvm_matches_graph;
using test::random_tensor;

// A shape of `rank` dims cycling through `sizes` ({2, 1}: 2, 1, 2, 1, ...).
Shape cycle(int rank, const Shape& sizes) {
  Shape s;
  for (int d = 0; d < rank; ++d) s.push_back(sizes[static_cast<size_t>(d) % sizes.size()]);
  return s;
}

Var input(const std::string& name, const Shape& shape, DType t = DType::Float64) {
  return tensor(name, t, std::vector<int64_t>(shape.begin(), shape.end()));
}

cpu::KernelLayout layout_of(const std::vector<Var>& inputs, const std::vector<Var>& outputs) {
  test::WholeGroup w = test::whole_group(inputs, outputs);
  return cpu::kernel_layout(lower_group(w.group).kernel);
}

TEST(CpuHighRank, ElementwiseDimsBeyondTheRenderedOnesRunAsLeadDims) {
  // x broadcasts along the odd dims, y along the even ones: nothing collapses, so a call has
  // 10 dims of 2 and the kernel renders 4 of them.
  const Shape xs = cycle(10, {2, 1}), ys = cycle(10, {1, 2});
  Var x = input("x", xs), y = input("y", ys);
  EXPECT_EQ(layout_of({x, y}, {x * y + x}).rank(), cpu::kMaxRenderedDims);
  expect_llvm_matches_graph({x, y}, {x * y + x, x - y},
                            {random_tensor(xs, DType::Float64, 1), random_tensor(ys, DType::Float64, 2)});
}

TEST(CpuHighRank, LeadDimsSplitAcrossThreadsGiveTheSameBits) {
#ifndef _OPENMP
  GTEST_SKIP() << "built without OpenMP";
#else
  // 2^16 elements in 16 uncollapsible dims: above the threading grain, so two threads split
  // the lead dims' flat index.
  const Shape xs = cycle(16, {2, 1}), ys = cycle(16, {1, 2});
  Var x = input("x", xs, DType::Float32), y = input("y", ys, DType::Float32);
  const std::vector<Tensor> values{random_tensor(xs, DType::Float32, 3), random_tensor(ys, DType::Float32, 4)};
  test::WholeGroup w = test::whole_group({x, y}, {exp(x) * y});
  LoweredGroup lowered = lower_group(w.group);
  const int before = omp_get_max_threads();
  std::vector<std::vector<Tensor>> out;
  for (int threads : {1, 2}) {
    omp_set_num_threads(threads);
    reset_team_governor();  // a team that lost earlier in this process must not keep it on one thread
    out.push_back(test::run_llvm(lowered.kernel, test::kernel_args(w, lowered, values)));
  }
  omp_set_num_threads(before);
  ASSERT_EQ(out[0][0].numel(), 1 << 16);
  EXPECT_EQ(0, std::memcmp(out[0][0].raw_data(), out[1][0].raw_data(), sizeof(float) << 16))
      << "bytes differ between 1 and 2 threads";
  expect_llvm_matches_graph({x, y}, {exp(x) * y}, values, 1e-6);
#endif
}

TEST(CpuHighRank, Rank64CompilesQuicklyAndComputesRight) {
  // NumPy's (and tgc's) largest rank: mostly size-1 dims, a few sizes, one broadcast.
  Shape xs(kMaxRank, 1), ys(kMaxRank, 1);
  xs[0] = 3, xs[20] = 2, xs[63] = 5;
  ys[20] = 2, ys[63] = 5;
  Var x = input("x", xs), y = input("y", ys);
  test::WholeGroup w = test::whole_group({x, y}, {exp(x) * y + 1.0});
  LoweredGroup lowered = lower_group(w.group);
  ASSERT_EQ(lowered.kernel.ndim, kMaxRank);
  const auto start = std::chrono::steady_clock::now();
  (void)test::memory_compiler().get(lowered.kernel);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 1.0) << "compiling a rank-64 kernel took " << seconds << " s";
  expect_llvm_matches_graph({x, y}, {exp(x) * y + 1.0},
                            {random_tensor(xs, DType::Float64, 5), random_tensor(ys, DType::Float64, 6)}, 1e-12);
}

TEST(CpuHighRank, ReductionKeptDimsBeyondTheRenderedOnesRunAsLeadDims) {
  // (2, 3) x 7, summed over axes 1, 3, 5, 7: the reduced dims (4 of size 3) fit the kernel;
  // the kept ones collapse to 5 (0, 2, 4, 6 and 8..13), one more than it renders.
  const Shape xs = cycle(14, {2, 3});
  Var x = input("x", xs);
  const Var s = sum(x, {1, 3, 5, 7}), m = max(x, {1, 3, 5, 7});
  const cpu::KernelLayout layout = layout_of({x}, {s});
  EXPECT_EQ(layout.outer_rank, cpu::kMaxRenderedDims);
  EXPECT_EQ(layout.reduce_rank, 4);
  expect_llvm_matches_graph({x}, {s, m}, {random_tensor(xs, DType::Float64, 7)}, 1e-12);
}

TEST(CpuHighRank, ReducedDimsBeyondTheRenderedOnesRunThroughTheInterpreter) {
  // Five uncollapsible reduced dims: one output point's range would span several calls, so the
  // interpreter computes the call (exactly the reference).
  const Shape xs = cycle(10, {2, 3});
  Var x = input("x", xs);
  const Tensor value = random_tensor(xs, DType::Float64, 8);
  expect_llvm_matches_graph({x}, {sum(x, {1, 3, 5, 7, 9})}, {value}, 1e-12);
  expect_llvm_matches_graph({x}, {max(x * x, {0, 2, 4, 6, 8})}, {value});
}

}  // namespace
}  // namespace tgc
