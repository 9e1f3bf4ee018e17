// Which backends a function runs on, and which Device a device name means: the device config
// key's one reading, shared by function() (frontend/api/function.cpp) and the eager API's
// device("cuda:1") (frontend/api/eager/).
#pragma once

#include <memory>
#include <string>

#include "compiler/backend.h"
#include "runtime/config.h"
#include "runtime/device.h"

namespace tgc {

// A device name read: cpu, cuda[:N] or opencl[:P:D] (platform -1: the first with a device).
struct DeviceSpec {
  DeviceKind kind = DeviceKind::Host;
  int ordinal = 0;    // cuda:N
  int platform = -1;  // opencl:P:D
  int index = 0;
};
// ConfigError naming `name` and what is accepted when it names no device.
DeviceSpec parse_device_spec(const std::string& name);

// The backend of the host nodes: LLVM when built with it, else the reference backend (and
// the backend a ForcedBackendForTests names).
std::unique_ptr<Backend> make_host_backend(const Config& config);
// The backend of the device nodes for config.device, or nullptr for device=cpu.
std::unique_ptr<Backend> make_device_backend(const Config& config);

// The Device a name means (the process-wide device object; opened on first use). ConfigError
// when the device is not available here, saying why as `tgc devices` does.
Device& device_by_name(const std::string& name);

}  // namespace tgc
