// The direct convolution kernels of GPU devices: conv2d (plain, with its bias, with bias and
// relu: FusedConv2d), its input gradient (and conv_transpose2d, the same op) and its weights'
// gradient (ops/conv/conv2d.h), rendered once as C-family source for CUDA C and OpenCL C 1.2
// through the dialect hooks. Device-agnostic: backends/gpu/conv_thunks plans and launches
// them. They run where no library does (OpenCL, CUDA without cuDNN): correct everywhere, not
// tuned (no tiling, no implicit GEMM; docs/conv.md says what is left).
//
// A thread per element of the result, in a grid-stride loop, summing in double in the order
// of the reference's loops (ops/conv/conv_reference.cpp), so float64 results are the
// reference's bit for bit: the forward pass over (c, kh, kw) of its group; the input gradient,
// for its input element, over the group's output channels, then the output rows and columns
// whose window holds it; the weights' gradient over (n, oh, ow). The bias is added in double,
// relu taken there, and the sum rounded once at the store.
//
// The ABI of every entry: its pointers (out first, then a, b and, with a bias, the bias: x, w
// for the forward pass; dy, w for the input gradient; x, dy for the weights'), then the params
// blob by value (`struct { long long v[kConvParams]; }`, slots in convp below), then, OpenCL
// only, one ulong per pointer in order: its offset in elements (kernel_render.h). Activations
// are addressed through their strides along (n, c, h, w) and weights along (o, c, kh, kw),
// whatever the layout; the bias through its one stride.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/c_family/kernel_render.h"
#include "runtime/dtype.h"

namespace tgc::cfam {

enum class ConvOp : uint8_t { Forward, ForwardBias, ForwardBiasRelu, GradInput, GradWeights };

struct ConvKernel {
  ConvOp op = ConvOp::Forward;
  DType dtype = DType::Float32;  // of every operand: float32 or float64
  bool index32 = false;          // every element offset and the element count fit in int32
  bool operator==(const ConvKernel&) const = default;
};

// Every entry of the conv unit, in order; launch indices are positions in this list.
const std::vector<ConvKernel>& conv_kernels();
// The position of `k` in conv_kernels(); -1 when there is none.
int conv_entry(const ConvKernel& k);
std::string conv_entry_name(const ConvKernel& k);  // "tgc_conv_grad_input_float32_i32"

// The whole unit (only_entry < 0) or the unit with only that entry defined.
std::string render_conv(Dialect dialect, int only_entry = -1);

// The params slots (blob positions): the geometry (conv_params.h's Conv2dGeometry with the
// attributes), then the strides of out, a, b (4 each) and of the bias (1).
namespace convp {
constexpr int kN = 0, kC = 1, kH = 2, kW = 3, kO = 4, kKH = 5, kKW = 6, kOH = 7, kOW = 8, kSH = 9, kSW = 10,
              kDH = 11, kDW = 12, kPT = 13, kPL = 14, kGroups = 15, kStrides = 16;
constexpr int strides(int operand) { return kStrides + 4 * operand; }
constexpr int kBiasStride = kStrides + 12;
}  // namespace convp
constexpr int kConvParams = convp::kBiasStride + 1;

}  // namespace tgc::cfam
