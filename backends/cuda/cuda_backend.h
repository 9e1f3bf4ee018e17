// The CUDA backend's entry points for the rest of tgc: making the backend for device=cuda[:N]
// and describing the CUDA devices (or why there are none) for `tgc devices`.
#pragma once

#include <memory>
#include <string>

#include "compiler/backend.h"
#include "runtime/config.h"

namespace tgc {

// Whether a CUDA device can be used here (built, driver loaded, a device present).
bool cuda_available();

// The backend running device-placed nodes on CUDA device `ordinal`. ConfigError saying why
// when CUDA cannot be used (not built, no driver, no such device).
std::unique_ptr<Backend> make_cuda_backend(const Config& config, int ordinal);

// The same backend over cuda:`ordinal` described but not opened (gpu::UnopenedGpuDevice), for
// looking at a function's placement where CUDA cannot be used here (no driver or device):
// tgc show. The rules decide as on a GPU; anything that would touch the device throws,
// saying why it is not available. ConfigError in a build without the CUDA backend.
std::unique_ptr<Backend> make_cuda_inspection_backend(const Config& config, int ordinal);

// "cuda     available  (NVIDIA H100 80GB HBM3, sm_90, ...)" or
// "cuda     unavailable  (no NVIDIA driver found: ...)": one line per device, or the reason.
std::string cuda_devices_description();

// "cudnn    available  (cuDNN 9.19.0, <path>; ...)" or "cudnn    unavailable  (<why>)": the
// library of the convolutions and pooling on CUDA devices (cudnn_library.h), in every build.
std::string cudnn_devices_description();

}  // namespace tgc
