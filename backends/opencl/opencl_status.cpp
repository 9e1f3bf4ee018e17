// The OpenCL probe: platforms and devices through the ICD loader, and which are usable.
#include "backends/opencl/opencl_status.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "backends/opencl/cl_error.h"

namespace tgc::opencl {

namespace {

std::string platform_string(cl_platform_id p, cl_platform_info what) {
  size_t n = 0;
  if (clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  if (clGetPlatformInfo(p, what, n, s.data(), nullptr) != CL_SUCCESS) return "";
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string device_string(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  if (clGetDeviceInfo(d, what, n, s.data(), nullptr) != CL_SUCCESS) return "";
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

template <typename T>
T device_value(cl_device_id d, cl_device_info what, T fallback) {
  T v{};
  return clGetDeviceInfo(d, what, sizeof(T), &v, nullptr) == CL_SUCCESS ? v : fallback;
}

OpenCLDeviceInfo describe(int platform, int index, cl_platform_id p, cl_device_id d) {
  OpenCLDeviceInfo info;
  info.platform = platform;
  info.index = index;
  info.platform_id = p;
  info.device_id = d;
  info.platform_name = platform_string(p, CL_PLATFORM_NAME);
  info.device_name = device_string(d, CL_DEVICE_NAME);
  info.driver_version = device_string(d, CL_DRIVER_VERSION);
  info.device_version = device_string(d, CL_DEVICE_VERSION);
  info.gpu = (device_value<cl_device_type>(d, CL_DEVICE_TYPE, 0) & CL_DEVICE_TYPE_GPU) != 0;
  info.global_memory = device_value<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE, 0);
  info.compute_units = static_cast<int>(device_value<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS, 1));
  info.max_work_group_size = static_cast<int>(device_value<size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, 1));
  info.exact_float_divide =
      (device_value<cl_device_fp_config>(d, CL_DEVICE_SINGLE_FP_CONFIG, 0) & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
  // The renderer computes float rows in double and writes double literals: OpenCL 1.2 makes
  // doubles an extension.
  const std::string extensions = device_string(d, CL_DEVICE_EXTENSIONS);
  if (extensions.find("cl_khr_fp64") == std::string::npos)
    info.unusable = "no cl_khr_fp64 (double precision), which tgc's kernels need";
  else if (!device_value<cl_bool>(d, CL_DEVICE_AVAILABLE, CL_FALSE))
    info.unusable = "the driver reports it as not available";
  else if (!device_value<cl_bool>(d, CL_DEVICE_COMPILER_AVAILABLE, CL_FALSE))
    info.unusable = "the driver has no OpenCL C compiler for it";
  return info;
}

// Drivers that compile OpenCL C with an LLVM of their own (PoCL: LLVM 15) must not bind to
// the LLVM 16 that libtgc links for its CPU backend: both define the same vague-linkage
// symbols (template vtables), and the first loaded wins, which crashes the driver's compiler.
// Each driver library the ICD files name is loaded first with RTLD_DEEPBIND, so it and its
// dependencies resolve inside themselves; the loader's later dlopen gets that same copy.
[[maybe_unused]] void preload_drivers_deepbound() {
  std::vector<std::filesystem::path> icds;
  std::error_code ec;
  const char* vendors = std::getenv("OCL_ICD_VENDORS");
  const std::filesystem::path dir = vendors && std::filesystem::is_directory(vendors, ec) ? vendors : "/etc/OpenCL/vendors";
  if (vendors && std::filesystem::is_regular_file(vendors, ec)) icds.push_back(vendors);
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".icd") icds.push_back(e.path());
  for (const auto& icd : icds) {
    std::ifstream in(icd);
    std::string library;
    std::getline(in, library);
    while (!library.empty() && (library.back() == '\n' || library.back() == '\r' || library.back() == ' ')) library.pop_back();
    if (!library.empty()) dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);  // a failure: the loader reports it
  }
}

OpenCLStatus probe() {
  OpenCLStatus st;
#if defined(TGC_LINKS_LLVM)
  // Only where there is an LLVM of libtgc's own to keep apart: a deep-bound load has risks of
  // its own. On a lent H200's Ubuntu 24.04 image (a build without the LLVM backend) a driver
  // whose LLVM 16 was loaded deep-bound crashed in its static initialisation (Polly's pass
  // registration), so every program that probed OpenCL died at its start.
  preload_drivers_deepbound();
#endif
  cl_uint n_platforms = 0;
  cl_int err = clGetPlatformIDs(0, nullptr, &n_platforms);
  if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (err == CL_SUCCESS && n_platforms == 0)) {
    st.reason = "no OpenCL platform: the ICD loader found no driver (install pocl-opencl-icd for the CPU, or "
                "point OCL_ICD_VENDORS at a directory of .icd files)";
    return st;
  }
  if (err != CL_SUCCESS) {
    st.reason = "OpenCL could not be initialised: clGetPlatformIDs returned " + cl_error_name(err);
    return st;
  }
  std::vector<cl_platform_id> platforms(n_platforms);
  if (clGetPlatformIDs(n_platforms, platforms.data(), nullptr) != CL_SUCCESS) {
    st.reason = "OpenCL could not list its platforms";
    return st;
  }
  for (cl_uint p = 0; p < n_platforms; ++p) {
    cl_uint n_devices = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, nullptr, &n_devices) != CL_SUCCESS) continue;
    std::vector<cl_device_id> devices(n_devices);
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, n_devices, devices.data(), nullptr) != CL_SUCCESS) continue;
    for (cl_uint d = 0; d < n_devices; ++d)
      st.devices.push_back(describe(static_cast<int>(p), static_cast<int>(d), platforms[p], devices[d]));
  }
  for (const OpenCLDeviceInfo& d : st.devices) st.available = st.available || d.unusable.empty();
  if (st.devices.empty()) st.reason = "no OpenCL device: the platforms list none";
  else if (!st.available) st.reason = "no usable OpenCL device (each is listed with the reason)";
  return st;
}

}  // namespace

const OpenCLStatus& opencl_status() {
  static const OpenCLStatus status = probe();
  return status;
}

std::optional<OpenCLDeviceInfo> find_opencl_device(int platform, int index) {
  const OpenCLStatus& st = opencl_status();
  if (platform >= 0) {
    for (const OpenCLDeviceInfo& d : st.devices)
      if (d.platform == platform && d.index == index) return d;
    return std::nullopt;
  }
  for (const OpenCLDeviceInfo& d : st.devices)
    if (d.gpu && d.unusable.empty()) return d;
  for (const OpenCLDeviceInfo& d : st.devices)
    if (d.unusable.empty()) return d;
  return std::nullopt;
}

}  // namespace tgc::opencl
