// conv2d through an API's convolution-as-GEMM (BlasLibrary::conv2d: CLBlast's Convgemm, on
// OpenCL): the layers' usual forward convolution (NCHW, one group, float32 or float64) as one
// library call over the whole batch instead of tgc's direct kernel, a thread per result element.
// What the library does not take (padding that differs between the sides of an axis, no input
// channel, a library without the call) runs the direct kernel (conv_thunks.h).
#pragma once

#include <memory>

#include "backends/gpu/blas_library.h"
#include "backends/gpu/gpu_device.h"
#include "ops/core/node.h"
#include "runtime/config.h"
#include "runtime/program.h"

namespace tgc::gpu {

// A Conv2d (not its fused or gradient forms) in NCHW with one group, of float32 or float64.
bool conv_gemm_covers(const Node& node);
ThunkFn make_conv_gemm_thunk(GpuDevice& device, const Node& node, const Config& config,
                             std::unique_ptr<BlasLibrary> library);

}  // namespace tgc::gpu
