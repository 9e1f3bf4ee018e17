// The GPU layer's Composite thunk on each API: a kernel that flags an error (integer division
// by zero) raises exactly the reference's error through the host fallback, and the flag is
// cleared for the next call; shapes outside the single-pass fast path run on the host.
#include "backends/gpu/composite_thunk.h"

#include <gtest/gtest.h>

#include "backends/c_family/call_planner.h"
#include "backends/c_family/kernel_test_util.h"
#include "gpu_test_device.h"

namespace tgc {
namespace {

using device_test::on;

// A device that builds whole units (CUDA) builds a composite's module in two parts: first the
// entries the linker's expected shapes launch, then the others on the first launch of one;
// without an expectation, the 64-bit-index entries are the late part. No device needed.
TEST(GpuCompositeModule, BuildsTheExpectedEntriesFirstAndTheRestLate) {
  auto op = std::make_shared<const Composite>(test::reduce_kernel(KernelReduceOp::Sum, 2, {1}));
  const cfam::RenderOptions options;
  const cfam::Source whole = cfam::render(op->kernel(), options);
  const std::vector<bool> expected =
      cfam::entries_launched_for(op->kernel(), whole.entries.size(), {{256, 10}}, cfam::DeviceLimits{132, 1024, 32});
  ASSERT_EQ(expected.size(), whole.entries.size());
  const gpu::ModuleSource with = gpu::composite_module_source(op, options, whole, Config{}, "s = sum(x)", expected);
  ASSERT_EQ(with.late.size(), whole.entries.size());
  const std::string first = with.render_part(false), rest = with.render_part(true);
  for (size_t e = 0; e < whole.entries.size(); ++e) {
    EXPECT_EQ(with.late[e], !expected[e]) << whole.entries[e];
    const std::string definition = " " + whole.entries[e] + "(";
    EXPECT_EQ(first.find(definition) != std::string::npos, expected[e]) << whole.entries[e];
    EXPECT_EQ(rest.find(definition) != std::string::npos, !expected[e]) << whole.entries[e];
  }
  const gpu::ModuleSource without = gpu::composite_module_source(op, options, whole, Config{}, "s = sum(x)");
  EXPECT_EQ(without.late, whole.wide_index);
}

TEST(GpuComposite, KernelErrorsRaiseTheReferencesErrorAndTheFlagClears) {
  TGC_REQUIRE_GPU();
  Var a = vector("a", DType::Int32), b = vector("b", DType::Int32);
  const Tensor av = Tensor::from_vector<int32_t>({7, 8, 9, 10}), bv = Tensor::from_vector<int32_t>({1, 2, 0, 5});
  // Alone, and inside a longer fused chain.
  for (const Var& out : {floor_div(a, b), floor_div(a, b) + 1}) {
    Function fc = function({a, b}, {out}, {}, on("cpu"));
    Function fg = function({a, b}, {out}, {}, on(gpu_test::api()));
    std::string cpu_error, gpu_error;
    std::vector<Tensor> cpu_result, gpu_result;
    try { cpu_result = fc(av, bv); } catch (const Error& e) { cpu_error = e.what_part(); }
    try { gpu_result = fg(av, bv); } catch (const Error& e) { gpu_error = e.what_part(); }
    EXPECT_EQ(gpu_error, cpu_error) << "the device must raise exactly the reference's error";
    if (cpu_error.empty()) {
      EXPECT_TRUE(tensors_equal(gpu_result[0], cpu_result[0]));
    }
    // The flag was cleared: the next, valid call runs.
    const Tensor ok = Tensor::from_vector<int32_t>({1, 2, 3, 5});
    EXPECT_TRUE(tensors_equal(fg(av, ok)[0], fc(av, ok)[0]));
  }
}

TEST(GpuComposite, ShapesOutsideTheFastPathRunOnTheHost) {
  TGC_REQUIRE_GPU();
  // Both dims unknown at compile time; at run time y broadcasts along dim 0 inside the group.
  Var x = matrix("x", DType::Float32), y = matrix("y", DType::Float32);
  RandomState rng(3);
  gpu_test::expect_matches_cpu({x, y}, {exp(x) + y * 2.0, (x + y).sum(1)},
                               {rng.rand({64, 33}).astype(DType::Float32), rng.rand({1, 33}).astype(DType::Float32)},
                               2e-6);
}

// Column reductions (the kept innermost dim dense, launch_plan's column schedule and pass 2):
// a batch norm's statistics over the rows of channels-last activations, a max over the rows
// of a matrix, float64 sums of a transposed view, each against the host.
TEST(GpuComposite, ColumnReductionsMatchTheHost) {
  TGC_REQUIRE_GPU();
  RandomState rng(11);
  Var x = tensor4("x", DType::Float32);
  const Tensor nhwc = rng.normal(0, 1, {16, 32, 32, 64}).astype(DType::Float32);  // 2^20 elements: the column schedule
  gpu_test::expect_matches_cpu({x}, {mean(x, {0, 1, 2}), sum(sqr(x - mean(x, {0, 1, 2}, true)), {0, 1, 2})}, {nhwc},
                               2e-5, 1e-5);
  Var m = matrix("m", DType::Float32);
  gpu_test::expect_matches_cpu({m}, {max(m, 0), sum(m, 0)}, {rng.normal(0, 1, {20000, 61}).astype(DType::Float32)},
                               2e-5, 1e-3);
  Var d = matrix("d", DType::Float64);
  gpu_test::expect_matches_cpu({d}, {sum(d.T(), 1)}, {rng.normal(0, 1, {20000, 53})}, 1e-11, 1e-11);
}

// Elementwise kernels over NHWC activations with (C,) vectors broadcast along the rows (the
// strided entry with vectors along the channels): a batch norm's y, two outputs, a 0-d input,
// doubles, and 6 channels (no vectors) beside them; each against the host.
TEST(GpuComposite, RowsWithBroadcastVectorsMatchTheHost) {
  TGC_REQUIRE_GPU();
  RandomState rng(13);
  Var x = tensor4("x", DType::Float32), m = vector("m", DType::Float32), g = vector("g", DType::Float32);
  Var s = scalar("s", DType::Float32);
  auto spread = [](const Var& v) { return dimshuffle(v, {-1, -1, -1, 0}); };
  const Var y = (x - spread(m)) * spread(g) + s;
  for (int64_t c : {64, 6}) {
    gpu_test::expect_matches_cpu({x, m, g, s}, {y, maximum(y, 0.0) * x},
                                 {rng.normal(0, 1, {8, 16, 16, c}).astype(DType::Float32),
                                  rng.normal(0, 1, {c}).astype(DType::Float32), rng.normal(0, 1, {c}).astype(DType::Float32),
                                  Tensor::full(DType::Float32, Shape{}, 0.25)});
  }
  Var d = matrix("d", DType::Float64), dv = vector("dv", DType::Float64);
  gpu_test::expect_matches_cpu({d, dv}, {exp(d) * dimshuffle(dv, {-1, 0})},
                               {rng.normal(0, 1, {300, 64}), rng.normal(0, 1, {64})}, 1e-12, 1e-12);
}

// Row sums with a per-row value subtracted (softmax's sum(exp(x - max))): the vector block and
// pass-1 schedules read that value once a row; against the host.
TEST(GpuComposite, RowSumsWithAPerRowValueMatchTheHost) {
  TGC_REQUIRE_GPU();
  RandomState rng(14);
  Var x = matrix("x", DType::Float32);
  const Var m = max(x, 1, true);
  gpu_test::expect_matches_cpu({x}, {sum(exp(x - m), 1), sum(x - m, 1)},
                               {rng.normal(0, 1, {300, 4096}).astype(DType::Float32)}, 2e-5, 1e-4);
  gpu_test::expect_matches_cpu({x}, {sum(sqr(x - mean(x, 1, true)), 1)},
                               {rng.normal(0, 1, {4, 1 << 20}).astype(DType::Float32)}, 2e-5, 1e-3);
}

// The vector column schedule (four adjacent outputs a thread, row lanes combined in shared
// memory): float32 over 96 channels (24 groups of 4, 10 row lanes of 256 threads, 16 idle) with
// a 0-d input read by every lane, doubles (two 16-byte loads a row), a bool mask's count, a max;
// each against the host.
TEST(GpuComposite, VectorColumnReductionsMatchTheHost) {
  TGC_REQUIRE_GPU();
  RandomState rng(12);
  Var x = tensor4("x", DType::Float32);
  Var s = scalar("s", DType::Float32);
  const Tensor nhwc = rng.normal(0, 1, {16, 32, 24, 96}).astype(DType::Float32);
  gpu_test::expect_matches_cpu({x, s}, {sum(x * s, {0, 1, 2}), max(x, {0, 1, 2}), sum(x > 0.5, {0, 1, 2})},
                               {nhwc, Tensor::full(DType::Float32, Shape{}, 1.5)}, 2e-5, 1e-4);
  Var d = matrix("d", DType::Float64);
  gpu_test::expect_matches_cpu({d}, {sum(sqr(d), 0)}, {rng.normal(0, 1, {40000, 64})}, 1e-11, 1e-11);
}

}  // namespace
}  // namespace tgc
