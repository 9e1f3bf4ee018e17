// NVRTC: CUDA C source -> cubin for one architecture, through the kernel cache. Needs no GPU
// and no driver, so CI compiles every generated kernel on machines without either.
#pragma once

#include <string>
#include <vector>

namespace tgc::cuda {

// "13.0": the NVRTC library this process loaded (part of every cache key).
std::string nvrtc_version();

struct NvrtcOptions {
  int arch = 90;                     // compute capability * 10: 90 -> sm_90
  bool fast_math = false;            // --use_fast_math
  std::vector<std::string> extra;    // more NVRTC options, verbatim
  // PTX for compute_NN instead of a cubin for sm_NN: NVRTC's whole front end and code
  // generator without the final assembly (ptxas). CI's compile-everything gate uses it to
  // check every rendered kernel in a fraction of the time.
  bool ptx_only = false;
};

// Compiles `source` to a cubin (the bytes cuLibraryLoadData/cudaLibraryLoadData take).
// `name` labels the program in errors. A compile error throws InternalError carrying the
// NVRTC log and the numbered source (a renderer bug, never the user's).
// `cache_dir` empty: memory cache only; else the disk cache there too (runtime/kernel_cache.h),
// keyed by the source, NVRTC version, arch and options. NVRTC's time (codegen), the cache
// read's (load) and a miss's reason go to the current compile log (runtime/compile_log.h).
std::string nvrtc_compile(const std::string& source, const std::string& name, const NvrtcOptions& options,
                          const std::string& cache_dir = "");

// Whether `source`'s binary is in the kernel cache (memory, or `cache_dir`'s disk cache, from
// which it is read into memory); a miss's reason goes to the current compile log, under `name`.
bool nvrtc_cached(const std::string& source, const std::string& name, const NvrtcOptions& options,
                  const std::string& cache_dir = "");

// Compiles `sources` (whole units whose preambles are guarded and whose entry names differ:
// cfam::render) as one NVRTC program and puts its binary in the kernel cache under each
// source's key, so that nvrtc_compile(source) of any of them finds it: one NVRTC start instead
// of one per unit, the most of a small unit's build. `name` labels the program in errors.
void nvrtc_compile_together(const std::vector<std::string>& sources, const std::string& name,
                            const NvrtcOptions& options, const std::string& cache_dir = "");

}  // namespace tgc::cuda
