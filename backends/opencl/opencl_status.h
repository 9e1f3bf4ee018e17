// Whether OpenCL can run here, probed at run time through the ICD loader: every platform and
// device (with its `opencl:P:D` name), which one plain `opencl` means, or why there is none.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace tgc::opencl {

struct OpenCLDeviceInfo {
  int platform = 0, index = 0;  // P and D of opencl:P:D (positions as the loader lists them)
  cl_platform_id platform_id = nullptr;
  cl_device_id device_id = nullptr;
  std::string platform_name;   // "Portable Computing Language", "NVIDIA CUDA"
  std::string device_name;     // "pthread-skylake-avx512-...", "NVIDIA H100 80GB HBM3"
  std::string driver_version;  // CL_DRIVER_VERSION
  std::string device_version;  // "OpenCL 3.0 CUDA"
  bool gpu = false;
  size_t global_memory = 0;  // bytes
  int compute_units = 1;
  int max_work_group_size = 256;
  // CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT: float32 / and sqrt can round exactly (OpenCL's default
  // allows 2.5 ulps for division, which NVIDIA's driver uses).
  bool exact_float_divide = false;
  // Why tgc cannot use it ("no cl_khr_fp64: kernels compute in double"); "" when usable.
  std::string unusable;
  std::string spec() const { return "opencl:" + std::to_string(platform) + ":" + std::to_string(index); }
};

struct OpenCLStatus {
  bool available = false;  // some device is usable
  std::string reason;      // why not, when not
  std::vector<OpenCLDeviceInfo> devices;  // usable or not, in platform then device order
};

// Probed once per process (thread-safe); never throws.
const OpenCLStatus& opencl_status();

// The device `opencl:P:D` names, or nullopt. `opencl` alone (platform < 0): the first usable
// GPU, else the first usable device.
std::optional<OpenCLDeviceInfo> find_opencl_device(int platform, int index);

}  // namespace tgc::opencl
