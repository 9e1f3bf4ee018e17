// The thunks of the index and data-movement ops on any GPU device (written against GpuDevice
// and GpuModule only): gathers, scatters, strided copies and adds, arg reductions, fills and
// views, planned per call from the operands' shapes and strides and launched from the index
// kernels of backends/c_family/render_index.h (each entry a module per device, built on its
// first launch). `config` gives the kernel cache's directory.
#pragma once

#include <string>

#include "backends/gpu/gpu_device.h"
#include "ops/core/node.h"
#include "runtime/config.h"
#include "runtime/program.h"

namespace tgc::gpu {

// Ops whose outputs are views of their input (Subtensor, Split, SplitLike, and ReshapeLike of
// a dense input; a strided one is made dense first).
ThunkFn make_index_view_thunk(GpuDevice& device, const Node& node);
// AdvancedSubtensor: a gather. An out-of-range index raises the reference's error (the host
// reruns perform() when a kernel flags one).
ThunkFn make_gather_thunk(GpuDevice& device, const Node& node, const Config& config);
// IncSubtensor, set and inc, basic (strided assign / add) and advanced (a scatter: sorted and
// summed in index order, or with float atomics when config.deterministic is false).
ThunkFn make_inc_subtensor_thunk(GpuDevice& device, const Node& node, const Config& config);
// Argmax / Argmin.
ThunkFn make_arg_reduce_thunk(GpuDevice& device, const Node& node, const Config& config);
// Concatenate, Stack: copies into offset views of the result.
ThunkFn make_join_thunk(GpuDevice& device, const Node& node, const Config& config);
// Alloc, Fill (a broadcast assign), Arange, ArangeLike, Eye.
ThunkFn make_fill_thunk(GpuDevice& device, const Node& node, const Config& config);

// Why these thunks cannot run `node` ("" when they can): index forms, dtypes, ranks.
std::string index_op_declines(const Node& node);

}  // namespace tgc::gpu
