// Convolutions through an API's convolution-as-GEMM calls (BlasLibrary::conv2d, im2col,
// col2im: CLBlast on OpenCL) instead of tgc's direct kernels, a thread per result element:
// the layers' usual forms (NCHW, one group, float32 or float64). The forward pass is one
// batched call; the input gradient, per image, a product into columns summed back into the
// image; the weights' gradient, per image, the image's columns and a product added into dw.
// What the library does not take (padding that differs between the sides of an axis, an
// output size other than its own, no channel, a library without the calls) runs the direct
// kernel (conv_thunks.h).
#pragma once

#include <memory>

#include "backends/gpu/blas_library.h"
#include "backends/gpu/gpu_device.h"
#include "ops/core/node.h"
#include "runtime/config.h"
#include "runtime/program.h"

namespace tgc::gpu {

// A Conv2d, Conv2dGradInput or Conv2dGradWeights (not FusedConv2d) in NCHW with one group, of
// float32 or float64.
bool conv_gemm_covers(const Node& node);
ThunkFn make_conv_gemm_thunk(GpuDevice& device, const Node& node, const Config& config,
                             std::unique_ptr<BlasLibrary> library);

}  // namespace tgc::gpu
