// plan_launch: from operand geometry to the entry, the params blob and the grid. Collapses
// dims as the CPU launcher does (backends/cpu/kernel_launch.cpp: reduction kernels order kept
// dims first and collapse kept and reduced dims separately), picks the dense/vector path
// when every operand allows it, int32 indices when every offset fits, and a reduction
// schedule from the shapes and the device limits only, so the same call gets the same plan
// and the same bits.
#include <algorithm>
#include <cstdlib>
#include <limits>

#include "backends/c_family/fast_divisor.h"
#include "backends/c_family/render_common.h"
#include "compiler/kernel/interpreter.h"
#include "compiler/kernel/kernel_geometry.h"
#include "ops/elemwise/broadcast.h"
#include "runtime/error.h"

namespace tgc::cfam {

namespace {

using detail::EntryKind;
using detail::ParamLayout;

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
// Grid cap of grid-stride loops: 4 waves of 8 resident blocks per multiprocessor.
constexpr int64_t kBlocksPerMultiprocessor = 32;
// Reductions this short run serially in one thread per output (in the reference's order).
constexpr int64_t kSerialReduction = 32;
// Two passes only when each output's reduction is at least this long...
constexpr int64_t kTwoPassMinReduction = 8192;
// ...and pass-1 chunks are at least this long.
constexpr int64_t kMinChunk = 2048;
// Column reductions: threads per multiprocessor to aim for (a few waves of 256-thread blocks),
// each folding at least this many rows.
constexpr int64_t kColumnThreadsPerMultiprocessor = 1024;
constexpr int64_t kMinColumnRows = 32;
// The vector column schedule (RedColumnVector): each row lane folds at least this many rows of
// a chunk.
constexpr int64_t kMinColumnLaneRows = 8;
// ...for reductions of at least this many elements.
constexpr int64_t kMinColumnElements = int64_t{1} << 20;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The largest power of two up to `cap` threads that the device allows in a block.
int block_threads(const DeviceLimits& limits, int cap = 256) {
  int t = 1;
  while (t * 2 <= std::min(cap, limits.max_threads_per_block)) t *= 2;
  return t;
}

int64_t grid_cap(const DeviceLimits& limits) {
  return std::max<int64_t>(1, limits.multiprocessors) * kBlocksPerMultiprocessor;
}

int64_t blocks_for(int64_t items, int threads, const DeviceLimits& limits) {
  return std::clamp<int64_t>(ceil_div(items, threads), 1, grid_cap(limits));
}

// The largest |offset| an operand reaches over a collapsed group.
int64_t max_offset(const Shape& shape, const Strides& strides) {
  int64_t m = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] > 0) m += std::llabs(strides[d]) * (shape[d] - 1);
  return m;
}

// Writes a group (right-aligned in `cap` slots) at v[at...]: unused leading slots `fill`.
void put(std::vector<int64_t>& v, int at, int cap, const std::vector<int64_t>& group, int64_t fill) {
  TGC_INTERNAL_CHECK(static_cast<int>(group.size()) <= cap, "collapsed rank above the kernel's rank");
  const int lead = cap - static_cast<int>(group.size());
  for (int d = 0; d < cap; ++d) v[at + d] = d < lead ? fill : group[d - lead];
}

// A group's fast divisors (fast_divisor.h), right-aligned as its shape; unused slots divide by 1.
void put_divisors(std::vector<int64_t>& v, int at, int cap, const std::vector<int64_t>& group) {
  const int lead = cap - static_cast<int>(group.size());
  for (int d = 0; d < cap; ++d) v[at + d] = cfam::fast_divisor(d < lead ? 1 : group[d - lead]);
}

std::optional<LaunchPlan> plan_elementwise(const Kernel& k, const std::vector<Geometry>& ops, const Shape& loop_in,
                                           const DeviceLimits& limits) {
  const int nin = static_cast<int>(k.inputs.size());
  const ParamLayout layout = detail::param_layout(k);
  Shape shape = loop_in;
  std::vector<Strides> strides;
  for (const Geometry& g : ops) strides.push_back(broadcast_strides(g.shape, g.strides, loop_in));
  collapse_dims(shape, strides);
  if (shape.empty()) {  // a 0-d loop: one element
    shape = {1};
    for (Strides& s : strides) s = {0};
  }
  const int64_t n = shape_numel(shape);
  const int rank = static_cast<int>(shape.size());

  LaunchPlan plan;
  plan.variant.outer_rank = rank;
  plan.variant.reduce_rank = 0;
  bool contiguous = rank == 1;
  for (size_t op = 0; op < ops.size() && contiguous; ++op) {
    const bool scalar_input = static_cast<int>(op) < nin && detail::statically_scalar(k, static_cast<int>(op));
    if (!scalar_input && n > 1 && strides[op][0] != 1) contiguous = false;
  }
  const int w = detail::vector_width(k);
  const int threads = block_threads(limits);
  // Vectors only from one full block of them up: below that the vector loop leaves threads
  // idle while each runs its lanes one after another, and a small tensor under a long
  // computation (the logreg step's 400-element fused gradient: 14.6 us on an H100 as vectors)
  // is bound by that latency, so there every element gets its own thread.
  bool vector = contiguous && n / w >= threads;
  for (size_t op = 0; op < ops.size() && vector; ++op) {
    if (static_cast<int>(op) < nin && detail::statically_scalar(k, static_cast<int>(op))) continue;
    if (ops[op].address % (static_cast<uintptr_t>(w) * dtype_size(ops[op].dtype)) != 0) vector = false;
  }
  // Strided operands with vectors along the innermost dim (EwStridedVector): each operand
  // dense along it with its other strides multiples of w and an aligned base (or one element
  // by its static shape), the innermost extent a multiple of w (a vector never spans two of
  // its rows), the same block of vectors at least.
  bool strided_vector = !contiguous && shape.back() % w == 0 && n / w >= threads;
  for (size_t op = 0; op < ops.size() && strided_vector; ++op) {
    if (static_cast<int>(op) < nin && detail::statically_scalar(k, static_cast<int>(op))) continue;
    strided_vector = strides[op].back() == 1 &&
                     ops[op].address % (static_cast<uintptr_t>(w) * dtype_size(ops[op].dtype)) == 0;
    for (size_t d = 0; d + 1 < strides[op].size(); ++d) strided_vector = strided_vector && strides[op][d] % w == 0;
  }
  int64_t blocks = blocks_for(vector || strided_vector ? std::max<int64_t>(1, n / w) : n, threads, limits);
  auto fits_int32 = [&] {
    bool fits = n + blocks * threads <= kInt32Max;
    for (size_t op = 0; op < ops.size(); ++op) fits = fits && max_offset(shape, strides[op]) <= kInt32Max;
    return fits;
  };
  bool index32 = fits_int32();
  if (strided_vector && !index32) {  // its entry comes in int32 only: the strided one
    strided_vector = false;
    blocks = blocks_for(n, threads, limits);
    index32 = fits_int32();
  }
  plan.variant.index32 = index32;
  plan.variant.contiguous = contiguous;
  plan.variant.vector_width = vector || strided_vector ? w : 1;

  plan.params.assign(layout.capacity(), 0);
  plan.params[ParamLayout::kN] = n;
  plan.params[ParamLayout::kRank] = rank;
  put(plan.params, layout.kept_shape(), layout.kept_cap, shape, 1);
  put_divisors(plan.params, layout.kept_divisors(), layout.kept_cap, shape);
  for (size_t op = 0; op < ops.size(); ++op) put(plan.params, layout.kept_strides(static_cast<int>(op)), layout.kept_cap, strides[op], 0);
  if (n == 0) return plan;  // nothing to compute: no launch
  const EntryKind kind = vector           ? EntryKind::EwVector
                         : contiguous       ? EntryKind::EwContiguous
                         : strided_vector   ? EntryKind::EwStridedVector
                                            : EntryKind::EwStrided;
  plan.launches.push_back({detail::entry_index(k, kind, index32), blocks, threads, 0});
  return plan;
}

std::optional<LaunchPlan> plan_reduction(const Kernel& k, const std::vector<Geometry>& ops, const Shape& loop,
                                         const DeviceLimits& limits) {
  const int nin = static_cast<int>(k.inputs.size());
  const ParamLayout layout = detail::param_layout(k);
  const Shape out_space = kernel_output_space(k, loop);
  std::vector<Strides> strides;
  for (size_t op = 0; op < ops.size(); ++op) {
    const bool loop_space = static_cast<int>(op) < nin && !k.inputs[op].in_output_space;
    strides.push_back(loop_space ? broadcast_strides(ops[op].shape, ops[op].strides, loop)
                                 : output_space_strides(k, ops[op].shape, ops[op].strides, out_space));
  }
  SplitDims split = split_reduced_dims(k, loop, strides);
  Shape& kept = split.kept;
  Shape& reduced = split.reduced;
  std::vector<Strides>& kept_s = split.kept_strides;
  std::vector<Strides>& reduced_s = split.reduced_strides;
  const int64_t n_out = shape_numel(kept), n_red = shape_numel(reduced);

  LaunchPlan plan;
  plan.variant.outer_rank = static_cast<int>(kept.size());
  plan.variant.reduce_rank = static_cast<int>(reduced.size());
  const int threads = block_threads(limits);
  const int64_t sms = std::max(1, limits.multiprocessors);

  // The schedule. Reductions along a contiguous innermost dim read well with lanes spread
  // over the reduction; others (columns) with threads spread over the outputs.
  bool inner_contiguous = false, kept_contiguous = false;
  for (int j = 0; j < nin; ++j) {
    if (k.inputs[j].in_output_space) continue;
    if (!reduced_s[j].empty()) inner_contiguous = inner_contiguous || reduced_s[j].back() == 1;
    if (!kept_s[j].empty()) kept_contiguous = kept_contiguous || kept_s[j].back() == 1;
  }
  // Pass 1 (few outputs, long reductions): the dialect's block size, and chunks enough for its
  // resident blocks to fill every multiprocessor in one wave.
  const LongReduction& lr = limits.long_reduction;
  const int pass1_threads = block_threads(limits, lr.threads);
  EntryKind kind;
  int64_t chunks = 1;
  if (n_red <= kSerialReduction || (n_out >= 2 * sms * threads && !inner_contiguous)) kind = EntryKind::RedThread;
  else if (!inner_contiguous && kept_contiguous && n_red >= 2 * kMinColumnRows && n_out * n_red >= kMinColumnElements) {
    // A column reduction with too few outputs for a thread each: threads over (output, chunk
    // of rows), enough of them for a few waves, each chunk at least kMinColumnRows rows. The
    // lane-per-reduced-element schedules would read one element per row of the dense dim.
    // Smaller ones (an MLP's bias gradients) keep their one launch: pass 2 is a second.
    kind = EntryKind::RedColumn;
    chunks = std::clamp<int64_t>(ceil_div(kColumnThreadsPerMultiprocessor * sms, n_out), 2, n_red / kMinColumnRows);
  } else if (n_out >= 2 * sms || n_red < kTwoPassMinReduction) kind = EntryKind::RedBlock;
  else {
    kind = EntryKind::RedPass1;
    chunks = std::clamp<int64_t>(ceil_div(std::max(1, lr.blocks_per_multiprocessor) * sms, n_out), 1,
                                 std::max<int64_t>(1, n_red / kMinChunk));
  }
  // The column schedule with vectors (EntryKind::RedColumnVector, render_reduction.cpp): a
  // thread folds kColumnVectorOutputs adjacent outputs of the dense kept innermost dim with
  // one 16-byte load (two for 8-byte types) per row and input, and a block's row lanes combine
  // in shared memory before the partials are written. Every loop-space input is either one
  // element (statically) or dense along the kept innermost dim with every other stride a
  // multiple of the vector and an aligned base, and that dim's extent is a multiple of it.
  bool column_vector = false;
  int64_t column_rows_per_block = 0;
  if (kind == EntryKind::RedColumn && block_threads(limits) == detail::kColumnVectorBlock &&
      detail::column_vector_reduces(k) && kept.back() % detail::kColumnVectorOutputs == 0) {
    const int64_t v = detail::kColumnVectorOutputs;
    column_vector = true;
    for (int j = 0; j < nin && column_vector; ++j) {
      if (k.inputs[j].in_output_space || detail::statically_scalar(k, j)) continue;
      const size_t align = std::min<size_t>(16, v * dtype_size(ops[j].dtype));
      column_vector = kept_s[j].back() == 1 && ops[j].address % align == 0;
      for (size_t d = 0; d + 1 < kept_s[j].size(); ++d) column_vector = column_vector && kept_s[j][d] % v == 0;
      for (int64_t st : reduced_s[j]) column_vector = column_vector && st % v == 0;
    }
    if (column_vector) {
      // The kernel's tile: G = min(32, groups) groups of outputs along a warp, R row lanes.
      const int64_t groups = n_out / v, g = std::min<int64_t>(32, groups);
      const int64_t tiles = ceil_div(groups, g);
      column_rows_per_block = detail::kColumnVectorBlock / g;
      chunks = std::clamp<int64_t>(ceil_div(detail::kColumnVectorBlocksResident * sms, tiles), 1,
                                   std::max<int64_t>(1, n_red / (column_rows_per_block * kMinColumnLaneRows)));
    }
  }
  // Vector loads along the reduction (the block and pass-1 schedules): every loop-space
  // input reads one collapsed reduced dim densely or is constant along it by its static shape
  // (read once an output: softmax's row max), and every row (kept offsets) starts on a
  // vector boundary (chunks are interleaved stretches of whole vectors). At 4 bytes per lane
  // an H100 pass 1 reads at two thirds of its memory bandwidth: a lane needs more bytes in
  // flight.
  const int w = detail::reduction_vector_width(k);
  bool vector = kind != EntryKind::RedThread && kind != EntryKind::RedColumn && reduced.size() == 1;
  bool any_loop_input = false;
  for (int j = 0; j < nin && vector; ++j) {
    if (k.inputs[j].in_output_space || detail::constant_along_reduction(k, j)) continue;  // read once an output
    any_loop_input = true;
    const size_t bytes = static_cast<size_t>(w) * dtype_size(ops[j].dtype);
    if (reduced_s[j].back() != 1 || ops[j].address % bytes != 0) vector = false;
    for (int64_t st : kept_s[j]) vector = vector && st % w == 0;
  }
  vector = vector && any_loop_input;
  // RedBlock (over the reduction) and pass 2 (over the chunks): a block as wide as the work
  // fills, from one warp up.
  auto block_for = [&](int64_t work) {
    int b = std::min(threads, 32);
    while (b < threads && b * 8 < work) b *= 2;
    return b;
  };
  const int block_size = kind == EntryKind::RedBlock  ? block_for(vector ? ceil_div(n_red, w) : n_red)
                         : kind == EntryKind::RedPass1 ? pass1_threads
                                                       : threads;
  // Pass 2, or the last block of pass 1 when it combines (its block size).
  const int pass2_threads = kind == EntryKind::RedPass1 && lr.last_block_combines ? pass1_threads : block_for(chunks);

  int64_t blocks = 1;
  switch (kind) {
    case EntryKind::RedThread: blocks = blocks_for(n_out, threads, limits); break;
    case EntryKind::RedColumn:
      blocks = column_vector ? std::clamp<int64_t>(ceil_div(n_out / detail::kColumnVectorOutputs,
                                                            detail::kColumnVectorBlock / column_rows_per_block) *
                                                       chunks,
                                                   1, grid_cap(limits))
                             : blocks_for(n_out * chunks, threads, limits);
      break;
    case EntryKind::RedBlock: blocks = std::clamp<int64_t>(n_out, 1, grid_cap(limits)); break;
    default: blocks = std::clamp<int64_t>(n_out * chunks, 1, grid_cap(limits)); break;
  }
  const int64_t pass2_blocks = std::clamp<int64_t>(n_out, 1, grid_cap(limits));
  // A lane's reduced index runs to below n_red plus a load batch of strides of chunks *
  // block_size (render_reduction.cpp).
  bool index32 = n_out * chunks + blocks * block_size <= kInt32Max &&
                 n_red + detail::kReductionLoadBatch * chunks * block_size <= kInt32Max &&
                 n_out + pass2_blocks <= kInt32Max && chunks + pass2_threads <= kInt32Max;
  for (size_t op = 0; op < ops.size(); ++op)
    index32 = index32 && max_offset(kept, kept_s[op]) + max_offset(reduced, reduced_s[op]) <= kInt32Max;
  plan.variant.index32 = index32;
  vector = vector && index32;  // the vector entries come in int32 only
  column_vector = column_vector && index32;
  plan.variant.contiguous = vector || column_vector;
  plan.variant.vector_width = vector ? w : column_vector ? detail::kColumnVectorOutputs : 1;

  plan.params.assign(layout.capacity(), 0);
  plan.params[ParamLayout::kNOut] = n_out;
  plan.params[ParamLayout::kNRed] = n_red;
  plan.params[ParamLayout::kChunks] = chunks;
  plan.params[ParamLayout::kKeptRank] = static_cast<int64_t>(kept.size());
  plan.params[ParamLayout::kRedRank] = static_cast<int64_t>(reduced.size());
  put(plan.params, layout.kept_shape(), layout.kept_cap, kept, 1);
  put(plan.params, layout.red_shape(), layout.red_cap, reduced, 1);
  put_divisors(plan.params, layout.kept_divisors(), layout.kept_cap, kept);
  put_divisors(plan.params, layout.red_divisors(), layout.red_cap, reduced);
  for (size_t op = 0; op < ops.size(); ++op) {
    put(plan.params, layout.kept_strides(static_cast<int>(op)), layout.kept_cap, kept_s[op], 0);
    put(plan.params, layout.red_strides(static_cast<int>(op)), layout.red_cap, reduced_s[op], 0);
  }
  if (n_out == 0) return plan;  // nothing to write
  EntryKind entry = kind;
  if (vector) entry = kind == EntryKind::RedBlock ? EntryKind::RedBlockVector : EntryKind::RedPass1Vector;
  if (column_vector) entry = EntryKind::RedColumnVector;
  plan.launches.push_back({detail::entry_index(k, entry, index32), blocks, block_size, 0});
  // Both two-pass schedules keep each Reduce value's partials: n_out * chunks slots of 8 bytes.
  size_t reduces = 0;
  for (const KernelValue& v : k.values) reduces += v.kind == KernelValue::Kind::Reduce ? 1 : 0;
  const size_t partials_bytes = reduces * static_cast<size_t>(n_out * chunks) * 8;
  if (kind == EntryKind::RedColumn) {
    plan.scratch_bytes = partials_bytes;
    plan.launches.push_back({detail::entry_index(k, EntryKind::RedPass2, index32), pass2_blocks, pass2_threads, 0});
  }
  if (kind == EntryKind::RedPass1) {
    plan.scratch_bytes = partials_bytes;
    if (lr.last_block_combines) plan.tickets = n_out;
    else plan.launches.push_back({detail::entry_index(k, EntryKind::RedPass2, index32), pass2_blocks, pass2_threads, 0});
  }
  return plan;
}

}  // namespace

std::optional<LaunchPlan> plan_launch(const Kernel& kernel, const std::vector<Geometry>& inputs,
                                      const std::vector<Geometry>& outputs, const DeviceLimits& limits) {
  TGC_INTERNAL_CHECK(inputs.size() == kernel.inputs.size() && outputs.size() == kernel.outputs.size(),
                     "plan_launch: operand count differs from the kernel's");
  std::vector<Shape> shapes;
  for (const Geometry& g : inputs) shapes.push_back(g.shape);
  if (!kernel_fast_path_applies(kernel, shapes)) return std::nullopt;
  // The loop space: the broadcast of the loop-space inputs (and, for elementwise kernels, of
  // the outputs, which also covers kernels without inputs), right-aligned to the loop rank.
  std::vector<Shape> parts;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!kernel.inputs[i].in_output_space) parts.push_back(inputs[i].shape);
  if (!kernel.is_reduction())
    for (const Geometry& g : outputs) parts.push_back(g.shape);
  Shape loop = broadcast_shapes(parts, "fused elementwise");
  while (static_cast<int>(loop.size()) < kernel.ndim) loop.insert(loop.begin(), 1);
  std::vector<Geometry> ops = inputs;
  ops.insert(ops.end(), outputs.begin(), outputs.end());
  return kernel.is_reduction() ? plan_reduction(kernel, ops, loop, limits) : plan_elementwise(kernel, ops, loop, limits);
}

}  // namespace tgc::cfam
