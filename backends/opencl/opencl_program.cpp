// Building OpenCL programs (through the kernel cache's program binaries) and launching their
// kernels.
#include "backends/opencl/opencl_program.h"

#include <fmt/format.h>

#include <chrono>

#include "backends/opencl/cl_error.h"
#include "runtime/compile_log.h"
#include "runtime/kernel_cache.h"

namespace tgc::opencl {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
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
  // Programs build on their first launch, usually after function() returned: then no compile
  // log is open and their times go nowhere (docs/profiling.md says so).
  CompileLog* compile_log = current_compile_log();
  std::string why_missed;
  auto t0 = std::chrono::steady_clock::now();
  if (auto hit = cache.get(key, compile_log && compile_log->explain_misses() ? &why_missed : nullptr); hit && !(*hit)->empty()) {
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
      why_missed = "the driver refused the cached program binary, rebuilt";
    }
  }
  if (compile_log && from_cache_) compile_log->add_load("opencl", seconds_since(t0));
  if (!program_) {
    if (compile_log && compile_log->explain_misses()) compile_log->add_miss({"opencl", label_, why_missed});
    t0 = std::chrono::steady_clock::now();
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
                                      numbered_source(source)),
                          "clBuildProgram", "this is a bug in tgc's OpenCL renderer or the driver; run with device=cpu "
                                            "meanwhile and report it with the log");
    }
    cache.put(key, program_binary(program_));
    if (compile_log) compile_log->add_codegen("opencl", seconds_since(t0));
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

OpenCLModule::OpenCLModule(OpenCLDevice& device, gpu::ModuleSource source)
    : device_(device), source_(std::move(source)), programs_(source_.entries.size()) {}

OpenCLProgram& OpenCLModule::program(size_t entry) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::unique_ptr<OpenCLProgram>& p = programs_.at(entry);
  if (!p)
    p = std::make_unique<OpenCLProgram>(device_, source_.render(static_cast<int>(entry)),
                                        std::vector<std::string>{source_.entries[entry]}, source_.label,
                                        source_.fast_math, source_.cache_dir);
  return *p;
}

bool OpenCLModule::built(size_t entry) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return programs_.at(entry) != nullptr;
}

void OpenCLModule::launch(size_t entry, int64_t blocks, int threads, size_t shared_bytes,
                          std::span<const gpu::LaunchArg> args) {
  TGC_INTERNAL_CHECK(blocks >= 1 && shared_bytes == 0, "launch of entry '" + source_.entries.at(entry) + "' of the " +
                                                           source_.label + " with " + std::to_string(blocks) +
                                                           " blocks and " + std::to_string(shared_bytes) +
                                                           " bytes of dynamic local memory");
  // The calling thread's vectors, kept between launches: a launch allocates nothing. Filled
  // first and pointed into after, so that no push moves what an argument points at.
  thread_local std::vector<cl_mem> mems;
  thread_local std::vector<cl_ulong> offsets;
  thread_local std::vector<KernelArg> cl_args;
  mems.clear();
  offsets.clear();
  cl_args.clear();
  for (const gpu::LaunchArg& a : args) {
    if (a.kind != gpu::LaunchArg::Kind::Address) continue;
    const BufferRef r = device_.resolve(a.ptr);
    mems.push_back(r.mem);
    if (a.size == 0) continue;  // a whole buffer (scratch, state): no offset
    TGC_INTERNAL_CHECK(r.offset % a.size == 0, "operand of the " + source_.label + " not aligned to its element size");
    offsets.push_back(r.offset / a.size);
  }
  size_t m = 0;
  for (const gpu::LaunchArg& a : args) {
    if (a.kind == gpu::LaunchArg::Kind::Address) cl_args.push_back({sizeof(cl_mem), &mems[m++]});
    else cl_args.push_back({a.size, a.ptr});
  }
  for (const cl_ulong& o : offsets) cl_args.push_back({sizeof(cl_ulong), &o});
  program(entry).launch(0, static_cast<size_t>(blocks), static_cast<size_t>(threads), cl_args);
}

}  // namespace tgc::opencl
