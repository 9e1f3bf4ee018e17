// plan_launch: collapsing, the dense/vector path from contiguity and alignment, int32 vs
// int64 indices, the reduction schedules, and that the same call always gets the same plan.
#include <gtest/gtest.h>

#include "backends/c_family/fast_divisor.h"
#include "backends/c_family/kernel_render.h"
#include "backends/c_family/kernel_test_util.h"

namespace tgc::cfam {
namespace {

using test::binary_kernel;
using test::reduce_kernel;

constexpr uintptr_t kBase = 1 << 20;  // 256-byte aligned, like device allocations
const DeviceLimits kH100{132, 1024, 32};

Geometry dense(DType t, Shape shape, uintptr_t address = kBase) {
  return {t, shape, contiguous_strides(shape), address};
}

// The entry names of a kernel, to check which one a launch picks.
std::string entry_of(const Kernel& k, const LaunchPlan& p, size_t launch = 0) {
  return render_body(k, {}).entries.at(p.launches.at(launch).entry);
}

TEST(PlanLaunch, DenseAlignedOperandsCollapseToOneVectorLoop) {
  const Kernel k = binary_kernel(ScalarOpKind::Add, DType::Float32, 2);
  auto p = plan_launch(k, {dense(DType::Float32, {400, 8}), dense(DType::Float32, {400, 8}, kBase + 16384)},
                       {dense(DType::Float32, {400, 8}, kBase + 32768)}, kH100);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->variant, (Variant{1, 0, true, 4, true}));
  EXPECT_EQ(p->variant.key(), "o1r0c1v4i32");
  EXPECT_EQ(entry_of(k, *p), "tgc_k_vector_i32");
  EXPECT_EQ(p->params[0], 3200);  // n
  EXPECT_EQ(p->params[1], 1);     // rank
  ASSERT_EQ(p->launches.size(), 1u);
  EXPECT_EQ(p->launches[0].blocks, 4);  // 800 vectors, blocks of 256 threads
  EXPECT_EQ(p->scratch_bytes, 0u);
}

// Dense NHWC activations with a (C,) vector broadcast over the rows (a batch norm's y): the
// strided entry with vectors along the channels; an odd channel count, a misaligned base or a
// broadcast along the channels (a per-row value) keeps the scalar one.
TEST(PlanLaunch, RowsWithABroadcastVectorTakeStridedVectors) {
  const Kernel k = binary_kernel(ScalarOpKind::Mul, DType::Float32, 4);
  auto entry = [&](Shape x, Geometry v) {
    auto p = plan_launch(k, {dense(DType::Float32, x), v}, {dense(DType::Float32, x, kBase + (1 << 26))}, kH100);
    return entry_of(k, *p);
  };
  const Geometry c64{DType::Float32, {1, 1, 1, 64}, {0, 0, 0, 1}, kBase + (1 << 25)};
  EXPECT_EQ(entry({16, 32, 32, 64}, c64), "tgc_k_strided_vector_i32");
  auto p = plan_launch(k, {dense(DType::Float32, {16, 32, 32, 64}), c64},
                       {dense(DType::Float32, {16, 32, 32, 64}, kBase + (1 << 26))}, kH100);
  EXPECT_EQ(p->variant.vector_width, 4);
  EXPECT_EQ(p->launches[0].blocks, 16 * 32 * 32 * 64 / 4 / 256);
  const Geometry c63{DType::Float32, {1, 1, 1, 63}, {0, 0, 0, 1}, kBase + (1 << 25)};
  EXPECT_EQ(entry({16, 32, 32, 63}, c63), "tgc_k_strided_i32");
  const Geometry odd{DType::Float32, {1, 1, 1, 64}, {0, 0, 0, 1}, kBase + 4};
  EXPECT_EQ(entry({16, 32, 32, 64}, odd), "tgc_k_strided_i32");
  const Geometry per_row{DType::Float32, {16, 32, 32, 1}, {1024, 32, 1, 0}, kBase + (1 << 25)};
  EXPECT_EQ(entry({16, 32, 32, 64}, per_row), "tgc_k_strided_i32");
}

// Fewer vectors than a block's threads: an element per thread, not four lanes in a row.
TEST(PlanLaunch, ASmallDenseTensorGetsAThreadPerElement) {
  const Kernel k = binary_kernel(ScalarOpKind::Add, DType::Float32, 1);
  auto p = plan_launch(k, {dense(DType::Float32, {400}), dense(DType::Float32, {400}, kBase + 4096)},
                       {dense(DType::Float32, {400}, kBase + 8192)}, kH100);
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->variant.contiguous);
  EXPECT_EQ(p->variant.vector_width, 1);
  EXPECT_EQ(entry_of(k, *p), "tgc_k_dense_i32");
  EXPECT_EQ(p->launches.at(0).blocks, 2);
  auto q = plan_launch(k, {dense(DType::Float32, {1024}), dense(DType::Float32, {1024}, kBase + 4096)},
                       {dense(DType::Float32, {1024}, kBase + 8192)}, kH100);
  EXPECT_EQ(q->variant.vector_width, 4);  // one block of vectors
}

TEST(PlanLaunch, DoublesUseTwoWideVectorsAndMisalignmentFallsBackToScalars) {
  const Kernel k = binary_kernel(ScalarOpKind::Mul, DType::Float64, 1, DType::Float64);
  auto p = plan_launch(k, {dense(DType::Float64, {1000}), dense(DType::Float64, {1000}, kBase + 8192)},
                       {dense(DType::Float64, {1000}, kBase + 16384)}, kH100);
  EXPECT_EQ(p->variant.vector_width, 2);
  auto q = plan_launch(k, {dense(DType::Float64, {1000}, kBase + 8), dense(DType::Float64, {1000}, kBase + 8192)},
                       {dense(DType::Float64, {1000}, kBase + 16384)}, kH100);
  EXPECT_TRUE(q->variant.contiguous);
  EXPECT_EQ(q->variant.vector_width, 1);
  EXPECT_EQ(entry_of(k, *q), "tgc_k_dense_i32");
}

TEST(PlanLaunch, TransposedOrBroadcastOperandsTakeTheStridedPath) {
  const Kernel k = binary_kernel(ScalarOpKind::Add, DType::Float32, 2);
  Geometry t{DType::Float32, {6, 5}, {1, 6}, kBase};  // column-major
  auto p = plan_launch(k, {t, dense(DType::Float32, {6, 5})}, {dense(DType::Float32, {6, 5})}, kH100);
  EXPECT_FALSE(p->variant.contiguous);
  EXPECT_EQ(p->variant.outer_rank, 2);
  EXPECT_EQ(entry_of(k, *p), "tgc_k_strided_i32");
  // Params: n, rank, shape[2], then strides[2] per operand (i0, i1, out0).
  // ... and each shape dim's fast divisor (fast_divisor.h).
  EXPECT_EQ(p->params, (std::vector<int64_t>{30, 2, 6, 5, 1, 6, 5, 1, 5, 1, fast_divisor(6), fast_divisor(5)}));

  Kernel b = binary_kernel(ScalarOpKind::Add, DType::Float32, 2);
  b.inputs[1] = {DType::Float32, 1, {-1}, false};
  auto q = plan_launch(b, {dense(DType::Float32, {6, 5}), dense(DType::Float32, {5})}, {dense(DType::Float32, {6, 5})}, kH100);
  EXPECT_FALSE(q->variant.contiguous);
  EXPECT_EQ(q->params[6], 0);  // the row broadcasts along dim 0
  EXPECT_EQ(q->params[7], 1);
}

TEST(PlanLaunch, StaticallyScalarInputsKeepTheVectorPath) {
  Kernel k = binary_kernel(ScalarOpKind::Mul, DType::Float32, 2);
  k.inputs[1] = {DType::Float32, 0, {}, false};
  auto p = plan_launch(k, {dense(DType::Float32, {64, 64}), dense(DType::Float32, {}, kBase + 4)},
                       {dense(DType::Float32, {64, 64}, kBase + 32768)}, kH100);
  EXPECT_EQ(p->variant, (Variant{1, 0, true, 4, true}));
}

TEST(PlanLaunch, Int64IndicesWhenAnOffsetPassesInt32) {
  const Kernel k = binary_kernel(ScalarOpKind::Add, DType::Float32, 1);
  const int64_t small = int64_t{1} << 30, big = (int64_t{1} << 31) + 16;
  auto p = plan_launch(k, {dense(DType::Float32, {small}), dense(DType::Float32, {small})},
                       {dense(DType::Float32, {small})}, kH100);
  EXPECT_TRUE(p->variant.index32);
  auto q = plan_launch(k, {dense(DType::Float32, {big}), dense(DType::Float32, {big})},
                       {dense(DType::Float32, {big})}, kH100);
  EXPECT_FALSE(q->variant.index32);
  EXPECT_EQ(entry_of(k, *q), "tgc_k_vector_i64");
  // A small loop whose strides reach far also needs 64 bits.
  Geometry far{DType::Float32, {4}, {int64_t{1} << 30}, kBase};
  auto r = plan_launch(k, {far, dense(DType::Float32, {4})}, {dense(DType::Float32, {4})}, kH100);
  EXPECT_FALSE(r->variant.index32);
  // The grid is capped at a few waves: a grid-stride loop covers the rest.
  EXPECT_EQ(q->launches[0].blocks, 132 * 32);
}

TEST(PlanLaunch, EmptyLoopsLaunchNothing) {
  const Kernel k = binary_kernel(ScalarOpKind::Add, DType::Float32, 2);
  auto p = plan_launch(k, {dense(DType::Float32, {0, 3}), dense(DType::Float32, {0, 3})},
                       {dense(DType::Float32, {0, 3})}, kH100);
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->launches.empty());
}

TEST(PlanLaunch, NoPlanWhereTheSinglePassDoesNotApply) {
  // out0 = exp(i0) at i0's shape, out1 = exp(i0) + i1 at the broadcast shape: i0 (4,) and
  // i1 (3, 4) make out0 smaller than the loop.
  Kernel k;
  k.ndim = 2;
  k.inputs = {{DType::Float32, 1, {-1}, false}, {DType::Float32, 2, {-1, -1}, false}};
  k.values = {test::load_value(0, DType::Float32), test::load_value(1, DType::Float32),
              test::op_value(ScalarOpKind::Exp, DType::Float32, {0}),
              test::op_value(ScalarOpKind::Add, DType::Float32, {2, 1})};
  k.outputs = {{2, DType::Float32}, {3, DType::Float32}};
  EXPECT_FALSE(plan_launch(k, {dense(DType::Float32, {4}), dense(DType::Float32, {3, 4})},
                           {dense(DType::Float32, {4}), dense(DType::Float32, {3, 4})}, kH100));
}

TEST(PlanLaunch, ReductionsOrderKeptDimsFirstAndCollapseEachGroup) {
  const Kernel k = reduce_kernel(KernelReduceOp::Sum, 4, {0, 2});
  auto p = plan_launch(k, {dense(DType::Float32, {2, 3, 4, 5})}, {dense(DType::Float32, {3, 5})}, kH100);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->variant.outer_rank, 2);
  EXPECT_EQ(p->variant.reduce_rank, 2);
  // n_out, n_red, chunks, kept rank, reduced rank, kept shape[2], reduced shape[2], then per
  // operand kept strides[2] and reduced strides[2], then the fast divisors of the kept and the
  // reduced shape.
  EXPECT_EQ(p->params, (std::vector<int64_t>{15, 8, 1, 2, 2, 3, 5, 2, 4, 20, 1, 60, 5, 5, 1, 0, 0, fast_divisor(3),
                                             fast_divisor(5), fast_divisor(2), fast_divisor(4)}));
  EXPECT_EQ(entry_of(k, *p), "tgc_k_reduce_thread_i32");  // 8 elements: one thread each
}

TEST(PlanLaunch, RowReductionsTakeABlockPerOutputColumnReductionsAThread) {
  const Kernel rows = reduce_kernel(KernelReduceOp::Sum, 2, {1});
  auto p = plan_launch(rows, {dense(DType::Float32, {1000, 4096})}, {dense(DType::Float32, {1000})}, kH100);
  EXPECT_EQ(entry_of(rows, *p), "tgc_k_reduce_block_vector_i32");  // dense aligned rows: vectors
  EXPECT_EQ(p->launches[0].threads, 128);                           // sized for 1024 vectors
  EXPECT_EQ(p->launches[0].blocks, 1000);
  auto small = plan_launch(rows, {dense(DType::Float32, {1000, 100})}, {dense(DType::Float32, {1000})}, kH100);
  EXPECT_EQ(small->launches[0].threads, 32);  // one warp for a short row

  const Kernel cols = reduce_kernel(KernelReduceOp::Max, 2, {0});
  auto q = plan_launch(cols, {dense(DType::Float32, {512, 100000})}, {dense(DType::Float32, {100000})}, kH100);
  EXPECT_EQ(entry_of(cols, *q), "tgc_k_reduce_thread_i32");
}

// A column reduction with few outputs (a batch norm's sums over the rows of NHWC activations,
// the channels kept): threads over (output, stretch of rows), outputs fastest, then pass 2
// over each output's partials in order. Too few rows: the earlier schedules.
TEST(PlanLaunch, FewColumnsTakeThreadsOverRowStretchesThenPass2) {
  const Kernel k = reduce_kernel(KernelReduceOp::Sum, 2, {0});
  // 4 bytes past an aligned base: no vectors (the test below has them).
  const uintptr_t odd = kBase + 4;
  auto p = plan_launch(k, {dense(DType::Float32, {65536, 64}, odd)}, {dense(DType::Float32, {64})}, kH100);
  ASSERT_TRUE(p);
  ASSERT_EQ(p->launches.size(), 2u);
  EXPECT_EQ(entry_of(k, *p, 0), "tgc_k_reduce_column_i32");
  EXPECT_EQ(entry_of(k, *p, 1), "tgc_k_reduce_pass2_i32");
  const int64_t chunks = p->params[2];
  EXPECT_EQ(chunks, 65536 / 32);  // 1024 threads per multiprocessor wanted, at least 32 rows each
  EXPECT_EQ(p->launches[0].blocks, 64 * chunks / 256);
  EXPECT_EQ(p->launches[1].blocks, 64);
  EXPECT_EQ(p->launches[1].threads, 256);
  EXPECT_EQ(p->scratch_bytes, static_cast<size_t>(64 * chunks) * 8);
  EXPECT_EQ(p->tickets, 0);  // on CUDA too: pass 2 is a launch of its own
  DeviceLimits cuda = kH100;
  cuda.long_reduction = long_reduction(Dialect::Cuda);
  EXPECT_EQ(plan_launch(k, {dense(DType::Float32, {65536, 64}, odd)}, {dense(DType::Float32, {64})}, cuda)->launches.size(), 2u);
  // Many channels: fewer chunks, each still at least 32 rows.
  auto wide = plan_launch(k, {dense(DType::Float32, {4096, 512}, odd)}, {dense(DType::Float32, {512})}, kH100);
  EXPECT_EQ(entry_of(k, *wide, 0), "tgc_k_reduce_column_i32");
  EXPECT_EQ(wide->params[2], 4096 / 32);
  // Under 64 rows, or under 2^20 elements (an MLP's bias gradient): one launch, as before.
  auto short_cols = plan_launch(k, {dense(DType::Float32, {40, 64})}, {dense(DType::Float32, {64})}, kH100);
  EXPECT_EQ(entry_of(k, *short_cols, 0), "tgc_k_reduce_block_i32");
  auto bias_grad = plan_launch(k, {dense(DType::Float32, {256, 512})}, {dense(DType::Float32, {512})}, kH100);
  EXPECT_EQ(bias_grad->launches.size(), 1u);
  EXPECT_EQ(entry_of(k, *bias_grad, 0), "tgc_k_reduce_block_i32");
}

// The same columns, aligned: four adjacent outputs a thread (one 16-byte load a row), tiles of
// G = min(32, n_out / 4) groups and 256 / G row lanes, chunks enough for four blocks on each
// multiprocessor with at least 8 rows a lane, then pass 2 as before.
TEST(PlanLaunch, AlignedColumnsTakeVectorsOfOutputsAndRowLanes) {
  const Kernel k = reduce_kernel(KernelReduceOp::Sum, 2, {0});
  auto p = plan_launch(k, {dense(DType::Float32, {65536, 64})}, {dense(DType::Float32, {64})}, kH100);
  ASSERT_TRUE(p);
  ASSERT_EQ(p->launches.size(), 2u);
  EXPECT_EQ(entry_of(k, *p, 0), "tgc_k_reduce_column_vector_i32");
  EXPECT_EQ(entry_of(k, *p, 1), "tgc_k_reduce_pass2_i32");
  EXPECT_EQ(p->variant.vector_width, 4);
  // Chunks: one tile of 16 groups, 4 blocks a multiprocessor wanted (528), at most 65536 rows
  // over 16 lanes of 8 rows (512).
  EXPECT_EQ(p->params[2], 512);
  EXPECT_EQ(p->launches[0].blocks, 512);
  EXPECT_EQ(p->launches[0].threads, 256);
  EXPECT_EQ(p->scratch_bytes, static_cast<size_t>(64 * 512) * 8);
  // 512 channels over 4096 rows: 4 tiles of 32 groups, 8 row lanes, at most 4096 / 64 chunks.
  auto wide = plan_launch(k, {dense(DType::Float32, {4096, 512})}, {dense(DType::Float32, {512})}, kH100);
  EXPECT_EQ(entry_of(k, *wide, 0), "tgc_k_reduce_column_vector_i32");
  EXPECT_EQ(wide->params[2], 64);
  EXPECT_EQ(wide->launches[0].blocks, 4 * 64);
  // Doubles: two 16-byte loads a row; their rows must stay 16-byte aligned.
  const Kernel d = reduce_kernel(KernelReduceOp::Sum, 2, {0}, DType::Float64);
  auto dp = plan_launch(d, {dense(DType::Float64, {65536, 64})}, {dense(DType::Float64, {64})}, kH100);
  EXPECT_EQ(entry_of(d, *dp, 0), "tgc_k_reduce_column_vector_i32");
  auto dodd = plan_launch(d, {dense(DType::Float64, {65536, 64}, kBase + 8)}, {dense(DType::Float64, {64})}, kH100);
  EXPECT_EQ(entry_of(d, *dodd, 0), "tgc_k_reduce_column_i32");
  // A row stride that is no multiple of 4 (a slice of wider rows) misaligns every other row.
  auto sliced = plan_launch(k, {Geometry{DType::Float32, {65536, 64}, {66, 1}, kBase}}, {dense(DType::Float32, {64})}, kH100);
  EXPECT_EQ(entry_of(k, *sliced, 0), "tgc_k_reduce_column_i32");
  // Blocks of fewer than 256 threads: the scalar schedule.
  const DeviceLimits small{132, 128, 32};
  auto narrow = plan_launch(k, {dense(DType::Float32, {65536, 64})}, {dense(DType::Float32, {64})}, small);
  EXPECT_EQ(entry_of(k, *narrow, 0), "tgc_k_reduce_column_i32");
}

TEST(PlanLaunch, FewLongReductionsRunInTwoDeterministicPasses) {
  const Kernel k = reduce_kernel(KernelReduceOp::Mean, 1, {0});
  const int64_t n = 1 << 24;
  auto p = plan_launch(k, {dense(DType::Float32, {n})}, {dense(DType::Float32, {})}, kH100);
  ASSERT_TRUE(p);
  ASSERT_EQ(p->launches.size(), 2u);
  EXPECT_EQ(entry_of(k, *p, 0), "tgc_k_reduce_pass1_vector_i32");
  EXPECT_EQ(entry_of(k, *p, 1), "tgc_k_reduce_pass2_i32");
  const int64_t chunks = p->params[2];
  EXPECT_EQ(chunks, 8 * 132);
  EXPECT_EQ(p->scratch_bytes, static_cast<size_t>(chunks) * 8);
  // Pass 2: one block per output combines its chunks' partials with a block tree.
  EXPECT_EQ(p->launches[1].blocks, 1);
  EXPECT_EQ(p->launches[1].threads, 256);
  // The same call gets the same plan (and so the same combining order).
  auto again = plan_launch(k, {dense(DType::Float32, {n}, kBase + 64)}, {dense(DType::Float32, {})}, kH100);
  EXPECT_EQ(p->params, again->params);
  EXPECT_EQ(p->variant, again->variant);
  ASSERT_EQ(again->launches.size(), 2u);
  EXPECT_EQ(p->launches[0].blocks, again->launches[0].blocks);
  EXPECT_EQ(p->launches[0].threads, again->launches[0].threads);
  // A smaller device splits differently, but deterministically too.
  auto small = plan_launch(k, {dense(DType::Float32, {n})}, {dense(DType::Float32, {})}, {8, 256, 32});
  EXPECT_EQ(small->params[2], 64);
}

// CUDA's long reductions: 512-thread blocks, two per multiprocessor, and no pass 2: the block
// taking an output's last ticket combines, so the plan asks for a ticket per output.
TEST(PlanLaunch, CudaLongReductionsCombineInTheirOneLaunch) {
  DeviceLimits cuda = kH100;
  cuda.long_reduction = long_reduction(Dialect::Cuda);
  EXPECT_TRUE(cuda.long_reduction.last_block_combines);
  const Kernel k = reduce_kernel(KernelReduceOp::Sum, 1, {0});
  const int64_t n = 4000 * 4000;
  auto p = plan_launch(k, {dense(DType::Float32, {n})}, {dense(DType::Float32, {})}, cuda);
  ASSERT_TRUE(p);
  ASSERT_EQ(p->launches.size(), 1u);
  EXPECT_EQ(entry_of(k, *p, 0), "tgc_k_reduce_pass1_vector_i32");
  const int64_t chunks = p->params[2];
  EXPECT_EQ(chunks, 2 * 132);
  EXPECT_EQ(p->launches[0].blocks, chunks);
  EXPECT_EQ(p->launches[0].threads, 512);
  EXPECT_EQ(p->tickets, 1);
  EXPECT_EQ(p->scratch_bytes, static_cast<size_t>(chunks) * 8);
  // Three long rows: a ticket each, the chunks of the 264 blocks shared among them.
  const Kernel rows = reduce_kernel(KernelReduceOp::Sum, 2, {1});
  auto q = plan_launch(rows, {dense(DType::Float32, {3, 1 << 20})}, {dense(DType::Float32, {3})}, cuda);
  ASSERT_EQ(q->launches.size(), 1u);
  EXPECT_EQ(q->tickets, 3);
  EXPECT_EQ(q->params[2], 88);
  // Elsewhere (OpenCL) no tickets: pass 2 combines.
  auto r = plan_launch(rows, {dense(DType::Float32, {3, 1 << 20})}, {dense(DType::Float32, {3})}, kH100);
  EXPECT_EQ(r->tickets, 0);
  EXPECT_EQ(r->launches.size(), 2u);
}

// Vectors along the reduction need every row and chunk to start on 16 bytes and the reduced
// dim to be dense; anything else reads element by element (the same entries' scalar forms).
TEST(PlanLaunch, ReductionVectorsNeedDenseAlignedRows) {
  const Kernel rows = reduce_kernel(KernelReduceOp::Sum, 2, {1});
  auto entry = [&](Geometry in, Shape out) {
    auto p = plan_launch(rows, {in}, {dense(DType::Float32, out)}, kH100);
    return p ? entry_of(rows, *p) : std::string("none");
  };
  EXPECT_EQ(entry(dense(DType::Float32, {1000, 4096}), {1000}), "tgc_k_reduce_block_vector_i32");
  EXPECT_EQ(entry(dense(DType::Float32, {1000, 4096}, kBase + 4), {1000}), "tgc_k_reduce_block_i32");  // misaligned
  EXPECT_EQ(entry(dense(DType::Float32, {1000, 4095}), {1000}), "tgc_k_reduce_block_i32");  // odd rows
  // Rows laid out as columns (the reduced dim strided, the kept one dense): the column schedule,
  // with vectors of outputs (1000 of them, a multiple of 4), without where they are 999.
  EXPECT_EQ(entry(Geometry{DType::Float32, {1000, 4096}, {1, 1000}, kBase}, {1000}), "tgc_k_reduce_column_vector_i32");
  EXPECT_EQ(entry(Geometry{DType::Float32, {999, 4096}, {1, 999}, kBase}, {999}), "tgc_k_reduce_column_i32");
  // Rows of odd length in a padded buffer (a slice) are aligned again.
  EXPECT_EQ(entry(Geometry{DType::Float32, {1000, 4095}, {4096, 1}, kBase}, {1000}), "tgc_k_reduce_block_vector_i32");
  // One long reduction whose length is no multiple of 4: whole vectors, then a scalar tail.
  const Kernel all = reduce_kernel(KernelReduceOp::Sum, 1, {0});
  auto p = plan_launch(all, {dense(DType::Float32, {(1 << 22) + 3})}, {dense(DType::Float32, {})}, kH100);
  EXPECT_EQ(entry_of(all, *p), "tgc_k_reduce_pass1_vector_i32");
  // Doubles: two per vector.
  const Kernel d = reduce_kernel(KernelReduceOp::Sum, 1, {0}, DType::Float64);
  auto q = plan_launch(d, {dense(DType::Float64, {1 << 22})}, {dense(DType::Float64, {})}, kH100);
  EXPECT_EQ(q->variant.vector_width, 2);
}

// sum(x - m) over rows with m an (N, 1) column (softmax's sum of exp(x - max)): m is the same
// along the row by its static shape, read once an output, so the rows still take vectors; a
// second input of unknown shape broadcast the same way at run time does not.
TEST(PlanLaunch, AnInputConstantAlongTheRowKeepsTheVectors) {
  auto kernel = [](int64_t static_dim) {
    Kernel k;
    k.ndim = 2;
    k.inputs = {{DType::Float32, 2, {-1, -1}, false}, {DType::Float32, 2, {-1, static_dim}, false}};
    k.values = {test::load_value(0, DType::Float32), test::load_value(1, DType::Float32),
                test::op_value(ScalarOpKind::Sub, DType::Float32, {0, 1}),
                test::reduce_value(KernelReduceOp::Sum, DType::Float32, 2)};
    k.outputs = {{3, DType::Float32}};
    k.reduce_axes = {1};
    return k;
  };
  const Geometry x = dense(DType::Float32, {1000, 4096}), m{DType::Float32, {1000, 1}, {1, 0}, kBase + (1 << 24)};
  const Kernel known = kernel(1), unknown = kernel(-1);
  auto p = plan_launch(known, {x, m}, {dense(DType::Float32, {1000}, kBase + (1 << 25))}, kH100);
  EXPECT_EQ(entry_of(known, *p), "tgc_k_reduce_block_vector_i32");
  EXPECT_TRUE(render(known, {Dialect::Cuda, false, "tgc_k"}).code.find("const float c1 = p1[q1];") != std::string::npos);
  auto q = plan_launch(unknown, {x, m}, {dense(DType::Float32, {1000}, kBase + (1 << 25))}, kH100);
  EXPECT_EQ(entry_of(unknown, *q), "tgc_k_reduce_block_i32");
}

TEST(PlanLaunch, OutputSpaceOperandsHaveNoReducedStrides) {
  Kernel k = reduce_kernel(KernelReduceOp::Sum, 2, {1});
  k.keepdims = true;
  auto p = plan_launch(k, {dense(DType::Float32, {7, 9})}, {dense(DType::Float32, {7, 1})}, kH100);
  ASSERT_TRUE(p);
  // Header 5, kept shape[1], reduced shape[1]; i0: kept 9, reduced 1; out0: kept 1, reduced 0;
  // the fast divisors of 7 and 9.
  EXPECT_EQ(p->params, (std::vector<int64_t>{7, 9, 1, 1, 1, 7, 9, 9, 1, 1, 0, fast_divisor(7), fast_divisor(9)}));
}

}  // namespace
}  // namespace tgc::cfam
