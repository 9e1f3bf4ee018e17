// The thunks of the pooling ops on any GPU device (written against GpuDevice and GpuModule
// only): Pool2d and Pool2dGrad, a thread per element of the result, launched from the pool
// kernels of backends/c_family/render_pool.h (each entry a module per device, built on its
// first launch). Operands are read through their strides in place; the result is dense in
// the op's layout.
#pragma once

#include <string>

#include "backends/gpu/gpu_device.h"
#include "ops/core/node.h"
#include "runtime/config.h"
#include "runtime/program.h"

namespace tgc::gpu {

// Whether `node` is a pooling op (Pool2d, Pool2dGrad).
bool is_pool_op(const Node& node);
// The thunk; `config` gives fast_math and the kernel cache's directory.
ThunkFn make_pool_thunk(GpuDevice& device, const Node& node, const Config& config);

}  // namespace tgc::gpu
