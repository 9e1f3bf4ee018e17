// The device-op rules of the convolution and pooling ops on CUDA devices, through cuDNN
// (CUDA's own rules, after the shared ones, as cuBLAS's are): a node runs on the device when
// cuDNN was loaded and can compute it as tgc defines it; otherwise it stays on the host with
// the reason (`tgc show`, assert_no_cpu_op): "cuDNN not found: ...", or what cuDNN lacks.
#pragma once

#include <span>

#include "backends/gpu/device_op_rules.h"

namespace tgc::cuda {

// The serial domain (Thunk::serial_domain) of cuDNN calls: one handle per device, apart from
// cuBLAS's and the collectives'.
inline constexpr int kCudnnDomain = 2;

// Conv2d, Conv2dGradInput (and ConvTranspose2d), Conv2dGradWeights, FusedConv2d; Pool2d,
// Pool2dGrad.
std::span<const gpu::DeviceOpRule> cudnn_op_rules();

}  // namespace tgc::cuda
