// The thunks of the convolution ops on any GPU device (written against GpuDevice and GpuModule
// only): Conv2d, FusedConv2d (its bias and relu), Conv2dGradInput (conv_transpose2d too) and
// Conv2dGradWeights, a thread per element of the result, launched from the direct kernels of
// backends/c_family/render_conv.h (each entry a module per device, built on its first
// launch). Operands are read through their strides in place; the result is dense in the op's
// layout. They run where no library does (the rule comes after each API's library rules).
#pragma once

#include <string>

#include "backends/gpu/gpu_device.h"
#include "ops/core/node.h"
#include "runtime/config.h"
#include "runtime/program.h"

namespace tgc::gpu {

// Whether `node` is a convolution op (Conv2d, FusedConv2d, Conv2dGradInput, Conv2dGradWeights).
bool is_conv_op(const Node& node);
// The thunk; `config` gives fast_math and the kernel cache's directory.
ThunkFn make_conv_thunk(GpuDevice& device, const Node& node, const Config& config);

}  // namespace tgc::gpu
