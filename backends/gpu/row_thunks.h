// The thunks of the row ops on any GPU device (written against GpuDevice and GpuModule only):
// Softmax, LogSoftmax, LogSumExp and LogSoftmaxGrad, one block per row, planned per call from
// the operands' shapes and strides (kept and reduced dims each collapsed, int32 offsets where
// they fit; strided inputs read in place) and launched from the row kernels of
// backends/c_family/render_rows.h (each entry a module per device and rendering, built on its
// first launch).
#pragma once

#include <string>

#include "backends/gpu/gpu_device.h"
#include "ops/core/node.h"
#include "runtime/config.h"
#include "runtime/program.h"

namespace tgc::gpu {

// Whether `node` is a row op (its class: Softmax, LogSoftmax, LogSumExp, LogSoftmaxGrad).
bool is_row_op(const Node& node);
// Why the row kernels cannot run the row op `node` ("" when they can): an integer input, a
// tensor of more than kRowMaxRank dims.
std::string row_op_declines(const Node& node);
// The thunk; `config` gives float32_math, fast_math and the kernel cache's directory.
ThunkFn make_row_thunk(GpuDevice& device, const Node& node, const Config& config);

}  // namespace tgc::gpu
