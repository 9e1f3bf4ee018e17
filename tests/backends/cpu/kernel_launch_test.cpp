// The launcher's promise that results do not depend on the thread count: elementwise and
// reduction kernels (float32 sums over large arrays, 2-d reductions along either axis, odd
// sizes so chunk boundaries fall inside vectors) give bit-identical outputs with 1 and 2
// OpenMP threads. And its plan cache: a launcher called with changing shapes and strides,
// or from several threads at once, computes what a fresh launch computes.
#include "backends/cpu/kernel_launch.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <thread>

#include "compiler/kernel/composite_op.h"
#include "cpu_test_util.h"
#include "runtime/cpu_team.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace tgc {
namespace {

using test::random_tensor;

// Runs the whole graph's kernel with `threads` OpenMP threads (the launcher's count).
std::vector<Tensor> run_at(int threads, const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                           const std::vector<Tensor>& values) {
#ifdef _OPENMP
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);
  EXPECT_EQ(cpu::launch_threads(), threads);
  // A team that lost to the machine's load earlier in this process must not leave this run
  // on one thread (runtime/cpu_team.h).
  reset_team_governor();
#endif
  test::WholeGroup w = test::whole_group(inputs, outputs);
  LoweredGroup lowered = lower_group(w.group);
  std::vector<Tensor> out = test::run_llvm(lowered.kernel, test::kernel_args(w, lowered, values));
#ifdef _OPENMP
  omp_set_num_threads(before);
#endif
  return out;
}

void expect_same_bits_at_1_and_2_threads(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                                         const std::vector<Tensor>& values) {
#ifndef _OPENMP
  GTEST_SKIP() << "built without OpenMP: kernels always run on one thread";
#endif
  const std::vector<Tensor> one = run_at(1, inputs, outputs, values);
  const std::vector<Tensor> two = run_at(2, inputs, outputs, values);
  ASSERT_EQ(one.size(), two.size());
  for (size_t j = 0; j < one.size(); ++j) {
    SCOPED_TRACE("output " + std::to_string(j));
    ASSERT_EQ(one[j].shape(), two[j].shape());
    ASSERT_TRUE(one[j].is_contiguous() && two[j].is_contiguous());
    const size_t bytes = static_cast<size_t>(one[j].numel()) * dtype_size(one[j].dtype());
    size_t differ = 0;
    for (size_t b = 0; b < bytes; ++b)
      differ += static_cast<const char*>(one[j].raw_data())[b] != static_cast<const char*>(two[j].raw_data())[b];
    EXPECT_EQ(differ, 0u) << "bytes differ between 1 and 2 threads";
  }
}

// Values spanning many magnitudes, so a different summation order changes the bits.
Tensor wide_range(const Shape& shape, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> exponent(-12, 12);
  std::vector<float> v(static_cast<size_t>(shape_numel(shape)));
  for (float& x : v) x = static_cast<float>((gen() & 1 ? 1 : -1) * std::exp(exponent(gen)));
  return Tensor::from_vector(v, shape);
}

TEST(CpuLaunchThreads, ElementwiseWithLibmIsIdentical) {
  // libmvec's vector functions and glibc's scalar ones (the loop's remainder) may differ in
  // the last ulp: an element must take the same path whatever the chunk it falls in.
  for (DType t : {DType::Float32, DType::Float64}) {
    SCOPED_TRACE(std::string(dtype_name(t)));
    Var a = vector("a", t), b = vector("b", t);
    const int64_t n = 1000003;  // odd: a 2-thread chunk boundary falls inside a vector
    expect_same_bits_at_1_and_2_threads({a, b}, {exp(a) * tanh(b) + log1p(a * a), a * b - 1.0},
                                        {random_tensor({n}, t, 1), random_tensor({n}, t, 2)});
  }
}

TEST(CpuLaunchThreads, ElementwiseOnAMatrixIsIdentical) {
  Var m = matrix("m"), v = vector("v");
  expect_same_bits_at_1_and_2_threads({m, v}, {sin(m) + v * 2.0},
                                      {random_tensor({517, 333}, DType::Float32, 3), random_tensor({333}, DType::Float32, 4)});
}

TEST(CpuLaunchThreads, Float32SumOverALargeArrayIsIdentical) {
  Var v = vector("v");
  Tensor value = wide_range({3000017}, 5);
  expect_same_bits_at_1_and_2_threads({v}, {sum(v), sum(v * v), mean(exp(v * 0.01))}, {value});
}

TEST(CpuLaunchThreads, MatrixReductionsAlongEitherAxisAreIdentical) {
  Var m = matrix("m");
  Tensor value = wide_range({1031, 1037}, 6);
  for (int axis : {0, 1}) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    expect_same_bits_at_1_and_2_threads({m}, {sum(m, axis), mean(m * m, axis)}, {value});
    expect_same_bits_at_1_and_2_threads({m}, {max(m, axis)}, {value});
    expect_same_bits_at_1_and_2_threads({m}, {min(exp(m * 0.1), axis)}, {value});
  }
  // Both axes of a transposed view: the kept axis is then the inner one in memory.
  expect_same_bits_at_1_and_2_threads({m}, {sum(m, 1)}, {value.transpose()});
}

// An inplace kernel (Composite::make_inplace) keeps the input buffer handed over in its
// output slot and computes the same bits as out of place, at 1 or more threads.
TEST(CpuLaunchInplace, WritesIntoTheHandedOverInputWithTheSameResults) {
  Var m = matrix("m"), v = matrix("v");
  test::WholeGroup w = test::whole_group({m, v}, {sin(m) * v + m, m - v});
  LoweredGroup lowered = lower_group(w.group);
  const std::vector<Tensor> values{random_tensor({517, 333}, DType::Float32, 7), random_tensor({517, 333}, DType::Float32, 8)};
  const std::vector<Tensor> args = test::kernel_args(w, lowered, values);
  const std::vector<Tensor> want = test::run_llvm(lowered.kernel, args);
  cpu::KernelFn fn = test::memory_compiler().get(lowered.kernel);
  for (int in = 0; in < 2; ++in) {
    SCOPED_TRACE("output 0 into input " + std::to_string(in));
    std::vector<Tensor> inputs{args[0].copy(), args[1].copy()};
    const void* buffer = inputs[in].raw_data();
    std::vector<Tensor> outputs{inputs[in], Tensor()};
    cpu::launch_kernel(lowered.kernel, fn, inputs, outputs, {in, -1});
    EXPECT_EQ(outputs[0].raw_data(), buffer);
    EXPECT_NE(outputs[1].raw_data(), buffer);
    for (size_t j = 0; j < want.size(); ++j) EXPECT_TRUE(tensors_equal(outputs[j], want[j])) << "output " << j;
  }
}

// A multi-output kernel with two outputs in place, each into an input it reads, while the
// other outputs read those inputs too (Composite::make_inplace): the LLVM loop computes
// output 0 (which reads neither) first and the overwritten inputs after, yet every output
// has the out-of-place bits; an input broadcast at run time is not overwritten.
TEST(CpuLaunchInplace, MultiOutputKernelsWriteTwoInputsWithTheSameResults) {
  Var m = matrix("m"), v = matrix("v"), u = matrix("u");
  test::WholeGroup w = test::whole_group({m, v, u}, {-u, sigmoid(v), m * v + u, exp(m) - v});
  LoweredGroup lowered = lower_group(w.group);
  ASSERT_EQ(lowered.kernel.inputs.size(), 3u);
  // The kernel's input positions of m and v (the group lists its inputs as first read).
  auto position = [&](int graph_input) {
    for (size_t i = 0; i < lowered.inputs.size(); ++i)
      if (lowered.inputs[i] == w.graph.inputs()[graph_input]) return static_cast<int>(i);
    return -1;
  };
  const int im = position(0), iv = position(1);
  Composite base(lowered.kernel);
  auto once = std::dynamic_pointer_cast<const Composite>(base.make_inplace(1, iv));  // sigmoid(v) into v
  ASSERT_NE(once, nullptr);
  auto twice = std::dynamic_pointer_cast<const Composite>(once->make_inplace(3, im));  // exp(m) - v into m
  ASSERT_NE(twice, nullptr);
  EXPECT_EQ(base.make_inplace(0, iv), nullptr);  // -u reads no v: the refused pairing
  const std::vector<Tensor> values{random_tensor({517, 333}, DType::Float32, 7), random_tensor({517, 333}, DType::Float32, 8),
                                   random_tensor({517, 333}, DType::Float32, 9)};
  const std::vector<Tensor> args = test::kernel_args(w, lowered, values);
  const std::vector<Tensor> want = test::run_llvm(lowered.kernel, args);
  cpu::KernelFn fn = test::memory_compiler().get(lowered.kernel);
  std::vector<Tensor> inputs{args[0].copy(), args[1].copy(), args[2].copy()};
  const void* m_buffer = inputs[im].raw_data();
  const void* v_buffer = inputs[iv].raw_data();
  std::vector<Tensor> outputs{Tensor(), inputs[iv], Tensor(), inputs[im]};
  cpu::launch_kernel(lowered.kernel, fn, inputs, outputs, twice->inplace_map());
  EXPECT_EQ(outputs[1].raw_data(), v_buffer);
  EXPECT_EQ(outputs[3].raw_data(), m_buffer);
  for (size_t j = 0; j < want.size(); ++j) EXPECT_TRUE(tensors_equal(outputs[j], want[j])) << "output " << j;

  // m broadcast at run time (a row for an unknown dim): the output meant for its buffer
  // gets a fresh one, v's still goes in place, and the values are the out-of-place ones.
  std::vector<Tensor> row_values = values;
  row_values[0] = random_tensor({1, 333}, DType::Float32, 10);
  const std::vector<Tensor> row_args = test::kernel_args(w, lowered, row_values);
  const std::vector<Tensor> row_want = test::run_llvm(lowered.kernel, row_args);
  std::vector<Tensor> row_inputs{row_args[0].copy(), row_args[1].copy(), row_args[2].copy()};
  const void* row_buffer = row_inputs[im].raw_data();
  const void* v2_buffer = row_inputs[iv].raw_data();
  std::vector<Tensor> row_outputs{Tensor(), row_inputs[iv], Tensor(), row_inputs[im]};
  cpu::launch_kernel(lowered.kernel, fn, row_inputs, row_outputs, twice->inplace_map());
  EXPECT_EQ(row_outputs[1].raw_data(), v2_buffer);
  EXPECT_NE(row_outputs[3].raw_data(), row_buffer);
  for (size_t j = 0; j < row_want.size(); ++j) EXPECT_TRUE(tensors_equal(row_outputs[j], row_want[j])) << "output " << j;
}

// One launcher (a thunk's) called with shapes and strides that change from call to call,
// and back: each result equals a fresh launch's, so no stale plan is ever used.
TEST(CpuKernelLauncher, ReplansWhenShapesOrStridesChange) {
  Var m = matrix("m"), v = vector("v");
  for (bool reduction : {false, true}) {
  SCOPED_TRACE(reduction ? "a reduction kernel" : "an elementwise kernel");
  test::WholeGroup w = reduction ? test::whole_group({m, v}, {sum(exp(m) * v, 1)})
                                 : test::whole_group({m, v}, {exp(m) * v, m - v});
  LoweredGroup lowered = lower_group(w.group);
  cpu::KernelFn fn = test::memory_compiler().get(lowered.kernel);
  cpu::KernelLauncher launcher(lowered.kernel, fn);
  const Tensor big = random_tensor({70, 50}, DType::Float32, 1), small = random_tensor({3, 4}, DType::Float32, 2),
               square = random_tensor({60, 60}, DType::Float32, 9);
  const std::vector<std::vector<Tensor>> calls{
      {big, random_tensor({50}, DType::Float32, 3)},
      {small, random_tensor({4}, DType::Float32, 4)},
      {big.transpose(), random_tensor({70}, DType::Float32, 5)},
      {square, random_tensor({60}, DType::Float32, 7)},
      {square.transpose(), random_tensor({60}, DType::Float32, 8)},  // same shapes, other strides
      {big, random_tensor({50}, DType::Float32, 6)},
      {big, random_tensor({50}, DType::Float32, 6)},  // the cached plan again
  };
  for (size_t c = 0; c < calls.size(); ++c) {
    SCOPED_TRACE("call " + std::to_string(c));
    const std::vector<Tensor> args = test::kernel_args(w, lowered, calls[c]);
    std::vector<Tensor> got(lowered.kernel.outputs.size());
    launcher(args, got);
    const std::vector<Tensor> want = test::run_llvm(lowered.kernel, args);
    ASSERT_EQ(got.size(), want.size());
    for (size_t j = 0; j < want.size(); ++j) EXPECT_TRUE(tensors_equal(got[j], want[j])) << "output " << j;
  }
  }
}

// Threads sharing one launcher, each with its own shapes, all get their own results.
TEST(CpuKernelLauncher, ConcurrentCallsGetTheirOwnResults) {
  Var m = matrix("m");
  test::WholeGroup w = test::whole_group({m}, {tanh(m) + m});
  LoweredGroup lowered = lower_group(w.group);
  cpu::KernelLauncher launcher(lowered.kernel, test::memory_compiler().get(lowered.kernel));
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      const Tensor value = random_tensor({5 + t, 300 + 7 * t}, DType::Float32, 10 + t);
      const std::vector<Tensor> args = test::kernel_args(w, lowered, {value});
      const std::vector<Tensor> want = test::run_llvm(lowered.kernel, args);
      for (int call = 0; call < 200; ++call) {
        std::vector<Tensor> got(1);
        launcher(args, got);
        mismatches[t] += !tensors_equal(got[0], want[0]);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

}  // namespace
}  // namespace tgc
