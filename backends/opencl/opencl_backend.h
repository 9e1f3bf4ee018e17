// The OpenCL backend's entry points for the rest of tgc: making the backend for
// device=opencl[:P:D] and describing the OpenCL devices (or why there are none) for `tgc devices`.
#pragma once

#include <memory>
#include <string>

#include "compiler/backend.h"
#include "runtime/config.h"

namespace tgc {

// Whether an OpenCL device can be used here (built, a platform with a usable device).
bool opencl_available();

// The backend running device-placed nodes on the OpenCL device `opencl:P:D` (platform < 0:
// plain `opencl`, the first GPU else the first device). ConfigError saying why when OpenCL
// cannot be used (not built, no platform, no such device).
std::unique_ptr<Backend> make_opencl_backend(const Config& config, int platform, int index);

// One line per device: "opencl:0:0 available  (Portable Computing Language: pthread-..., CPU,
// 2 compute units, ...)" or "opencl   unavailable  (reason)".
std::string opencl_devices_description();

}  // namespace tgc
