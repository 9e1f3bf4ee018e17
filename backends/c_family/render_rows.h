// The row kernels of GPU devices: softmax, log_softmax, logsumexp and log_softmax's gradient,
// one block (work-group) per row, rendered once as C-family source for CUDA C and OpenCL C 1.2
// through the dialect hooks. Device-agnostic: backends/gpu/row_thunks plans and launches them.
//
// A row is the op's reduced axes (collapsed where they merge), the other axes enumerate the
// rows. A block walks its rows (a grid-stride loop over rows); for each, its threads fold
// interleaved elements and combine in a fixed tree in shared / local memory: first the row max
// (a NaN wins), then the sum of exp(x - shift) in double, then the row is written (softmax,
// log_softmax, the gradient) or its thread 0 writes the one result (logsumexp). Long rows loop
// within the block; the tree's order is fixed, so a plan gives the same bits on every run.
//
// Arithmetic (the reference perform's formulas, ops/nn/softmax.h and logsumexp.h, with SciPy's
// inf/NaN rules): `C` is the element compute type, float for float32 (unless
// RowOptions::float32_in_double) and double for float64; sums accumulate in double and are
// rounded to C once per row, as the decomposition's Sum kernel did (decompose_for_fusion):
//   softmax:         e = exp(x - m), out = e / (C)sum(e)                 m the row max
//   log_softmax:     t = x - s,      out = t - log((C)sum(exp(t)))       s = m if finite, else 0
//   logsumexp:       out = log((C)sum(exp(x - s))) + s
//   log_softmax_grad (g, y = log_softmax(x)): out = g - exp(y) * (C)sum(g)
//   softmax_xent (z, t, g; ops/nn/softmax_cross_entropy.h): y = (T)log_softmax(z) as above,
//                    r = (T)sum(t * y) (each product in C, summed in double), d = g - exp(y) *
//                    (C)sum(g); softmax_xent_scaled reads g as t * c, c the params' scale slot
//                    (the dtype's bits)
//
// The ABI of every entry: its pointers (out first, then x, or g and y; softmax_xent: r, d, z, t
// and g, or without g when scaled), then the params blob by
// value (`struct { long long v[kRowParams]; }`, slots in rowp below), then, OpenCL only, one
// ulong per pointer in order: its offset in elements (kernel_render.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/c_family/kernel_render.h"
#include "runtime/dtype.h"

namespace tgc::cfam {

constexpr int kRowMaxRank = 8;      // kept and reduced dims, each, after collapsing
constexpr int kRowMaxThreads = 256;  // threads of a row block (the shared tree's size)

enum class RowOp : uint8_t { Softmax, LogSoftmax, LogSumExp, LogSoftmaxGrad, SoftmaxXent, SoftmaxXentScaled };

struct RowKernel {
  RowOp op = RowOp::Softmax;
  DType dtype = DType::Float32;  // of every operand: float32 or float64
  bool index32 = false;          // every element offset fits in int32
  bool operator==(const RowKernel&) const = default;
};

// How the unit is rendered (a part of a module's identity).
struct RowOptions {
  // float32_math=double: float32 rows compute in double and round once at the store.
  bool float32_in_double = false;
};

// Every entry of the row unit, in order; launch indices are positions in this list.
const std::vector<RowKernel>& row_kernels();
// The position of `k` in row_kernels(); -1 when there is none.
int row_entry(const RowKernel& k);
std::string row_entry_name(const RowKernel& k);  // "tgc_row_log_softmax_float32_i32"

// The whole unit (only_entry < 0) or the unit with only that entry defined.
std::string render_rows(Dialect dialect, const RowOptions& options, int only_entry = -1);

// The params slots (blob positions). Shapes hold the used dims first, outermost first; the
// operands' strides follow in the entry's pointer order (out, then inputs), kept then reduced.
namespace rowp {
constexpr int kNRows = 0, kNRed = 1, kKeptRank = 2, kRedRank = 3, kKeptShape = 4,
              kRedShape = kKeptShape + kRowMaxRank, kStrides = kRedShape + kRowMaxRank;
constexpr int kOperandSlots = 2 * kRowMaxRank;  // kept strides, then reduced strides
constexpr int kept_strides(int operand) { return kStrides + operand * kOperandSlots; }
constexpr int red_strides(int operand) { return kept_strides(operand) + kRowMaxRank; }
}  // namespace rowp
constexpr int kRowMaxOperands = 5;  // softmax_xent's r, d, z, t, g
// The last slot: softmax_xent_scaled's scale, as the bits of a float (float32 entries) or a
// double (float64 entries).
constexpr int kRowScaleSlot = rowp::kStrides + kRowMaxOperands * rowp::kOperandSlots;
constexpr int kRowParams = kRowScaleSlot + 1;

}  // namespace tgc::cfam
