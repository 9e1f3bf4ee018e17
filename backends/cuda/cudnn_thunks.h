// The thunks of the convolution and pooling ops on a CUDA device through cuDNN
// (cudnn_conv_thunk.cpp, cudnn_pool_thunk.cpp). Made only for nodes cudnn_rules.h accepts; in
// a build without cudnn.h (cudnn_none.cpp) the rules decline every node, so these are never
// called there.
#pragma once

#include "backends/cuda/cuda_device.h"
#include "ops/core/node.h"
#include "runtime/config.h"
#include "runtime/program.h"

namespace tgc::cuda {

// Conv2d, Conv2dGradInput (and ConvTranspose2d), Conv2dGradWeights, FusedConv2d: one cuDNN
// call each (forward, backward data, backward filter; forward with the bias and relu).
ThunkFn make_cudnn_conv_thunk(CudaDevice& device, const Node& node, const Config& config);

// Pool2d and Pool2dGrad: cudnnPoolingForward, and cudnnPoolingBackward after a forward that
// remakes the pooled values it reads.
ThunkFn make_cudnn_pool_thunk(CudaDevice& device, const Node& node, const Config& config);

}  // namespace tgc::cuda
