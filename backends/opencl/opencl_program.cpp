// Building OpenCL programs (through the kernel cache's program binaries) and launching their
// kernels.
#include "backends/opencl/opencl_program.h"

#include <fmt/format.h>

#include <sstream>

#include "backends/opencl/cl_error.h"
#include "runtime/kernel_cache.h"

namespace tgc::opencl {

namespace {

// Two FNV-1a passes with different offsets: 128 bits, so two sources never share an entry.
std::string source_hash(const std::string& s) {
  uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull;
  for (unsigned char c : s) {
    a = (a ^ c) * 0x100000001b3ull;
    b = (b ^ (c + 0x5bu)) * 0x100000001b3ull;
  }
  return fmt::format("{:016x}{:016x}-{}", a, b, s.size());
}

std::string numbered(const std::string& source) {
  std::istringstream in(source);
  std::string line, out;
  for (int n = 1; std::getline(in, line); ++n) out += fmt::format("{:5} {}\n", n, line);
  return out;
}

std::string build_log(cl_program program, cl_device_id device) {
  size_t n = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n) != CL_SUCCESS) return "";
  std::string log(n, '\0');
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr) != CL_SUCCESS) return "";
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

// The program's binary for its one device (what clCreateProgramWithBinary takes back).
KernelBlob program_binary(cl_program program) {
  size_t size = 0;
  check_cl(clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr), "clGetProgramInfo");
  KernelBlob blob(size);
  unsigned char* ptr = blob.data();
  if (size) check_cl(clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof(ptr), &ptr, nullptr), "clGetProgramInfo");
  return blob;
}

}  // namespace

OpenCLProgram::OpenCLProgram(OpenCLDevice& device, const std::string& source, const std::vector<std::string>& entries,
                             std::string label, bool fast_math, const std::string& cache_dir)
    : device_(device), names_(entries), label_(std::move(label)) {
  // Without fast math nothing is contracted or relaxed, and float32 division and sqrt round
  // exactly where the device can: the reference rounds each operation once.
  const OpenCLDeviceInfo& info = device.info();
  const std::string options = fast_math                 ? "-cl-fast-relaxed-math"
                              : info.exact_float_divide ? "-cl-fp32-correctly-rounded-divide-sqrt"
                                                        : "";
  const KernelCacheKey key{"opencl", source_hash(source), info.platform_name + " / driver " + info.driver_version,
                           info.device_name + " / " + info.device_version, "options=" + options};
  KernelCache& cache = kernel_cache_for(cache_dir);
  const cl_device_id id = device.id();
  cl_int err = CL_SUCCESS;
  if (auto hit = cache.get(key); hit && !(*hit)->empty()) {
    const size_t size = (*hit)->size();
    const unsigned char* bytes = (*hit)->data();
    cl_int binary_status = CL_SUCCESS;
    program_ = clCreateProgramWithBinary(device.context(), 1, &id, &size, &bytes, &binary_status, &err);
    if (err == CL_SUCCESS && binary_status == CL_SUCCESS &&
        clBuildProgram(program_, 1, &id, options.c_str(), nullptr, nullptr) == CL_SUCCESS) {
      from_cache_ = true;
    } else if (program_) {  // a binary the driver no longer takes: compile the source again
      clReleaseProgram(program_);
      program_ = nullptr;
    }
  }
  if (!program_) {
    const char* text = source.c_str();
    const size_t length = source.size();
    program_ = clCreateProgramWithSource(device.context(), 1, &text, &length, &err);
    check_cl(err, "clCreateProgramWithSource", label_);
    err = clBuildProgram(program_, 1, &id, options.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS) {
      const std::string log = build_log(program_, id);
      clReleaseProgram(program_);
      program_ = nullptr;
      throw InternalError(fmt::format("the OpenCL compiler of {} ({}) cannot build the {} ({}, options '{}')\nbuild "
                                      "log:\n{}\nsource:\n{}",
                                      device.name(), info.device_name, label_, cl_error_name(err), options, log,
                                      numbered(source)),
                          "clBuildProgram", "this is a bug in tgc's OpenCL renderer or the driver; run with device=cpu "
                                            "meanwhile and report it with the log");
    }
    cache.put(key, program_binary(program_));
  }
  for (const std::string& name : entries) {
    cl_kernel k = clCreateKernel(program_, name.c_str(), &err);
    if (err != CL_SUCCESS)
      throw DeviceError(fmt::format("the {} has no kernel named '{}' ({})", label_, name, cl_error_name(err)), "",
                        "a kernel must be declared __kernel for its name to be found");
    kernels_.push_back(k);
  }
}

OpenCLProgram::~OpenCLProgram() {
  for (cl_kernel k : kernels_) clReleaseKernel(k);
  if (program_) clReleaseProgram(program_);
}

void OpenCLProgram::launch(size_t i, size_t blocks, size_t threads, const std::vector<KernelArg>& args) {
  cl_kernel k = kernels_.at(i);
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t a = 0; a < args.size(); ++a)
    device_.check(clSetKernelArg(k, static_cast<cl_uint>(a), args[a].size, args[a].value), "clSetKernelArg");
  const size_t global = blocks * threads;
  device_.check(clEnqueueNDRangeKernel(device_.queue(), k, 1, nullptr, &global, &threads, 0, nullptr, nullptr),
                "clEnqueueNDRangeKernel");
}

}  // namespace tgc::opencl
