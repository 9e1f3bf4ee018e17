// The device config key read once: backends for function() and Devices by name.
#include "frontend/api/backend_choice.h"

#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "backends/backend_registry.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/opencl/opencl_backend.h"
#include "frontend/api/graphs_only.h"
#include "runtime/error.h"

namespace tgc {

namespace {

// A non-negative number of at most 6 digits, or -1.
int small_number(const std::string& s) {
  if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoi(s);
}

}  // namespace

DeviceSpec parse_device_spec(const std::string& d) {
  DeviceSpec spec;
  if (d == "cpu") return spec;
  if (d == "cuda" || d.starts_with("cuda:")) {
    spec.kind = DeviceKind::Cuda;
    if (d.size() > 4) spec.ordinal = small_number(d.substr(5));
    if (spec.ordinal < 0)
      throw ConfigError("device '" + d + "' names no CUDA device", "function()",
                        "write cuda or cuda:N with N the device's number (tgc devices lists them)");
    return spec;
  }
  if (d == "opencl" || d.starts_with("opencl:")) {
    spec.kind = DeviceKind::OpenCL;
    if (d == "opencl") return spec;
    const std::string rest = d.substr(7);  // after "opencl:"
    const size_t colon = rest.find(':');
    spec.platform = colon == std::string::npos ? -1 : small_number(rest.substr(0, colon));
    spec.index = colon == std::string::npos ? -1 : small_number(rest.substr(colon + 1));
    if (spec.platform < 0 || spec.index < 0)
      throw ConfigError("device '" + d + "' names no OpenCL device", "function()",
                        "write opencl, or opencl:P:D with P the platform's and D the device's number (tgc devices "
                        "lists them, e.g. opencl:0:0)");
    return spec;
  }
  throw ConfigError("device '" + d + "' is not available in this build", "function()",
                    "tgc runs on device=cpu, cuda[:N] or opencl[:P:D]; tgc devices says which work here");
}

// device=cpu: the LLVM backend when tgc is built with LLVM (fused kernels JIT-compiled), else
// the reference backend (fused kernels in the interpreter). optimizer=none leaves no fused
// kernel, so every node runs its reference perform(): the per-op evaluation to compare
// against when debugging.
std::unique_ptr<Backend> make_host_backend(const Config& config) {
  // Tests only (backends/backend_registry.h): the conformance suite picks the backend itself.
  if (std::optional<std::string> forced = forced_backend_for_tests(); forced && *forced != "cuda" && *forced != "opencl")
    return make_named_backend(*forced, config);
  return make_cpu_backend(config);
}

std::unique_ptr<Backend> make_device_backend(const Config& config) {
  if (forced_backend_for_tests() == "cuda") return make_cuda_backend(config, 0);
  if (forced_backend_for_tests() == "opencl") return make_opencl_backend(config, -1, 0);
  if (forced_backend_for_tests()) return nullptr;  // a host backend forced by a test
  const DeviceSpec spec = parse_device_spec(config.device);
  switch (spec.kind) {
    case DeviceKind::Host: return nullptr;
    case DeviceKind::Cuda:
      // A function made only to be looked at (tgc show) on a machine where CUDA cannot be
      // used: the CUDA rules over a device described but not opened, so the graph shown is
      // the one a GPU would get.
      if (graphs_only() && !cuda_available()) return make_cuda_inspection_backend(config, spec.ordinal);
      return make_cuda_backend(config, spec.ordinal);
    case DeviceKind::OpenCL: return make_opencl_backend(config, spec.platform, spec.index);
  }
  return nullptr;
}

Device& device_by_name(const std::string& name) {
  const DeviceSpec spec = parse_device_spec(name);
  if (spec.kind == DeviceKind::Host) return host_device();
  // Found once per name: making a backend loads its libraries, too slow for every use.
  static std::mutex mutex;
  static std::map<std::string, Device*> found;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = found.find(name); it != found.end()) return *it->second;
  // The backends own no device: each points at the process-wide object of its device, which
  // making the backend opens (or explains the absence of) the way function() does.
  Config config = global_config();
  config.device = name;
  // A device for tensors is always a real one: never the described-but-unopened device a
  // graphs-only function() gets (which this cache would otherwise keep for the process).
  GraphsOnlyScope::Suspend opened;
  const std::unique_ptr<Backend> backend = make_device_backend(config);
  Device* d = backend ? backend->device() : nullptr;
  TGC_INTERNAL_CHECK(d != nullptr, "the backend of device '" + name + "' has no device");
  found[name] = d;
  return *d;
}

}  // namespace tgc
