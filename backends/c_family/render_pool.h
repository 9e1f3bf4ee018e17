// The pooling kernels of GPU devices: 2-d max and average pooling and their gradients
// (ops/pool/pool2d.h), rendered once as C-family source for CUDA C and OpenCL C 1.2 through the
// dialect hooks. Device-agnostic: backends/gpu/pool_thunks plans and launches them. They run
// where no library does (OpenCL, CUDA without cuDNN).
//
// A thread per element of the result, in a grid-stride loop: the forward pass walks its output
// element's window; the gradient walks, for its input element, the windows that cover it, in
// the order the reference visits windows, so it gathers what the reference scatters (no
// atomics). Values are the reference's, bit for bit: the window bounds, divisor and first
// maximum (a NaN wins) are its rules; sums accumulate in double in the reference's order and
// round once at the store; a maximum is a copy of an element.
//
// The ABI of every entry: its pointers (out first: y, then x; or gx, then x and gy), then the
// params blob by value (`struct { long long v[kPoolParams]; }`, slots in poolp below), then,
// OpenCL only, one ulong per pointer in order: its offset in elements (kernel_render.h). Each
// operand is addressed through its strides along (n, c, h, w), whatever its layout.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/c_family/kernel_render.h"
#include "runtime/dtype.h"

namespace tgc::cfam {

enum class PoolOp : uint8_t { MaxForward, AvgForward, MaxGrad, AvgGrad };

struct PoolKernel {
  PoolOp op = PoolOp::MaxForward;
  DType dtype = DType::Float32;  // of every operand: float32 or float64
  bool index32 = false;          // every element offset and the element count fit in int32
  bool operator==(const PoolKernel&) const = default;
};

// Every entry of the pool unit, in order; launch indices are positions in this list.
const std::vector<PoolKernel>& pool_kernels();
// The position of `k` in pool_kernels(); -1 when there is none.
int pool_entry(const PoolKernel& k);
std::string pool_entry_name(const PoolKernel& k);  // "tgc_pool_max_grad_float32_i32"

// The whole unit (only_entry < 0) or the unit with only that entry defined.
std::string render_pool(Dialect dialect, int only_entry = -1);

// The params slots (blob positions): the input's sizes, the output's, the window, and each
// operand's strides along (n, c, h, w) in the entry's pointer order.
namespace poolp {
constexpr int kN = 0, kC = 1, kH = 2, kW = 3, kOH = 4, kOW = 5, kKH = 6, kKW = 7, kSH = 8, kSW = 9, kPH = 10,
              kPW = 11, kIncludePad = 12, kStrides = 13;
constexpr int strides(int operand) { return kStrides + 4 * operand; }
}  // namespace poolp
constexpr int kPoolOperands = 3;  // the gradient's gx, x, gy
constexpr int kPoolParams = poolp::kStrides + 4 * kPoolOperands;

}  // namespace tgc::cfam
