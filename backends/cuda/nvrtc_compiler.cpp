// NVRTC: CUDA C source -> cubin for one architecture, cached in runtime/kernel_cache.h under a
// key made of the source's hash, the NVRTC version, the target and the options.
#include "backends/cuda/nvrtc_compiler.h"

#include <fmt/format.h>

#include <chrono>
#include <memory>

#include "backends/cuda/toolkit_libraries.h"
#include "runtime/compile_log.h"
#include "runtime/error.h"
#include "runtime/kernel_cache.h"

namespace tgc::cuda {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

[[noreturn]] void fail(const std::string& what, const std::string& name, const std::string& detail) {
  throw InternalError(what, "NVRTC, program " + name,
                      detail.empty() ? "this is a bug in tgc's CUDA renderer; run with device=cpu meanwhile"
                                     : detail);
}

void check(nvrtcResult r, const char* call, const std::string& name) {
  if (r != NVRTC_SUCCESS) fail(fmt::format("{} failed: {}", call, nvrtc_api().GetErrorString(r)), name, "");
}

// The options that change the code. Without fast math, --fmad=false: the reference rounds
// a*b and a*b+c separately, and a fused multiply-add would round once.
std::vector<std::string> nvrtc_options(const NvrtcOptions& o) {
  std::vector<std::string> opts{fmt::format("--gpu-architecture={}_{}", o.ptx_only ? "compute" : "sm", o.arch),
                                "--std=c++17"};
  if (o.fast_math) opts.push_back("--use_fast_math");
  else opts.push_back("--fmad=false");
  opts.insert(opts.end(), o.extra.begin(), o.extra.end());
  return opts;
}

}  // namespace

std::string nvrtc_version() {
  int major = 0, minor = 0;
  check(nvrtc_api().Version(&major, &minor), "nvrtcVersion", "(version)");
  return fmt::format("{}.{}", major, minor);
}

namespace {

std::string flags_of(const std::vector<std::string>& opts) {
  std::string flags;
  for (const std::string& o : opts) flags += (flags.empty() ? "" : " ") + o;
  return flags;
}

KernelCacheKey nvrtc_key(const std::string& source, const NvrtcOptions& options) {
  return KernelCacheKey{"cuda", source_hash(source), "NVRTC " + nvrtc_version(),
                        fmt::format("{}_{}", options.ptx_only ? "compute" : "sm", options.arch),
                        flags_of(nvrtc_options(options))};
}

// NVRTC's build of `source` (no cache): the cubin, or the PTX where options.ptx_only.
std::string build(const std::string& source, const std::string& name, const NvrtcOptions& options) {
  const std::vector<std::string> opts = nvrtc_options(options);
  const std::string flags = flags_of(opts);
  nvrtcProgram prog = nullptr;
  check(nvrtc_api().CreateProgram(&prog, source.c_str(), (name + ".cu").c_str(), 0, nullptr, nullptr), "nvrtcCreateProgram",
        name);
  std::unique_ptr<nvrtcProgram, void (*)(nvrtcProgram*)> guard(&prog, [](nvrtcProgram* p) { nvrtc_api().DestroyProgram(p); });
  std::vector<const char*> argv;
  for (const std::string& o : opts) argv.push_back(o.c_str());
  const nvrtcResult compiled = nvrtc_api().CompileProgram(prog, static_cast<int>(argv.size()), argv.data());
  size_t log_size = 0;
  check(nvrtc_api().GetProgramLogSize(prog, &log_size), "nvrtcGetProgramLogSize", name);
  std::string log(log_size, '\0');
  if (log_size > 1) check(nvrtc_api().GetProgramLog(prog, log.data()), "nvrtcGetProgramLog", name);
  while (!log.empty() && log.back() == '\0') log.pop_back();  // the size counts the terminator
  if (compiled != NVRTC_SUCCESS)
    fail(fmt::format("NVRTC cannot compile the generated kernel source ({}, {}): {}\nlog:\n{}\nsource:\n{}",
                     nvrtc_api().GetErrorString(compiled), flags, name, log, numbered_source(source)),
         name, "");
  size_t size = 0;
  std::string cubin;
  if (options.ptx_only) {
    check(nvrtc_api().GetPTXSize(prog, &size), "nvrtcGetPTXSize", name);
    cubin.assign(size, '\0');
    check(nvrtc_api().GetPTX(prog, cubin.data()), "nvrtcGetPTX", name);
  } else {
    check(nvrtc_api().GetCUBINSize(prog, &size), "nvrtcGetCUBINSize", name);
    cubin.assign(size, '\0');
    check(nvrtc_api().GetCUBIN(prog, cubin.data()), "nvrtcGetCUBIN", name);
  }
  return cubin;
}

}  // namespace

std::string nvrtc_compile(const std::string& source, const std::string& name, const NvrtcOptions& options,
                          const std::string& cache_dir) {
  const KernelCacheKey key = nvrtc_key(source, options);
  KernelCache& cache = kernel_cache_for(cache_dir);
  CompileLog* compile_log = current_compile_log();
  std::string why_missed;
  auto t0 = std::chrono::steady_clock::now();
  if (auto hit = cache.get(key, compile_log && compile_log->explain_misses() ? &why_missed : nullptr)) {
    if (compile_log) compile_log->add_load("cuda", seconds_since(t0), /*kernels=*/0);  // the module's load counts it
    return std::string((*hit)->begin(), (*hit)->end());
  }
  if (compile_log && compile_log->explain_misses()) compile_log->add_miss({"cuda", name, why_missed});
  t0 = std::chrono::steady_clock::now();
  std::string cubin = build(source, name, options);
  cache.put(key, KernelBlob(cubin.begin(), cubin.end()));
  if (compile_log) compile_log->add_codegen("cuda", seconds_since(t0));
  return cubin;
}

bool nvrtc_cached(const std::string& source, const std::string& name, const NvrtcOptions& options,
                  const std::string& cache_dir) {
  CompileLog* compile_log = current_compile_log();
  const bool explain = compile_log && compile_log->explain_misses();
  std::string why_missed;
  if (kernel_cache_for(cache_dir).get(nvrtc_key(source, options), explain ? &why_missed : nullptr)) return true;
  if (explain) compile_log->add_miss({"cuda", name, why_missed});
  return false;
}

void nvrtc_compile_together(const std::vector<std::string>& sources, const std::string& name,
                            const NvrtcOptions& options, const std::string& cache_dir) {
  if (sources.empty()) return;
  std::string unit;
  for (const std::string& s : sources) unit += s;
  const std::string cubin = build(unit, name, options);
  KernelCache& cache = kernel_cache_for(cache_dir);
  for (const std::string& s : sources) cache.put(nvrtc_key(s, options), KernelBlob(cubin.begin(), cubin.end()));
}

}  // namespace tgc::cuda
