// The process's LLVM JIT for kernels: host target detection, the O3 pipeline with libmvec
// vector math, compilation to object code, the kernel cache (memory + disk) and ORC LLJIT
// loading. A compiler instance keeps the kernels it has linked, so the same kernel in another
// function is neither recompiled nor re-linked.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "backends/cpu/codegen_options.h"
#include "backends/cpu/kernel_abi.h"
#include "compiler/kernel/kernel_ir.h"
#include "runtime/kernel_cache.h"

namespace tgc::cpu {

// The host as LLVM sees it: "x86_64-pc-linux-gnu", "sapphirerapids", "+avx2,+fma,...".
struct HostTarget {
  std::string triple, cpu, features;
};
const HostTarget& host_target();
// "16.0.6"
std::string llvm_version();

// Counters for tests and `tgc devices`: how many kernels were compiled from IR and how many
// were loaded from cached object code.
struct JitStats {
  size_t compiled = 0;
  size_t loaded = 0;
};
JitStats jit_stats();

class KernelCompiler {
 public:
  // Kernels are cached in `cache` (memory and its directory) under a key holding the
  // kernel, the renderer version, LLVM's version, the host target and the options.
  KernelCompiler(KernelCache& cache, const CodegenOptions& options) : cache_(cache), options_(options) {}

  // The compiled kernel: from this compiler's table, else the cache's object code, else
  // rendered, optimized and compiled now (then stored in the cache). The time spent and a
  // miss's reason go to the current compile log (runtime/compile_log.h), a miss under
  // `label` (the node, for a person) when one is given.
  KernelFn get(const Kernel& kernel, const std::string& label = "");

  // Compiles those of `kernels` (each with its node's label) that are neither linked here nor
  // in the cache, on up to `threads` threads at once, into the cache: the get() of each that
  // follows loads it. Does nothing for fewer than two such kernels or threads (get() compiles
  // a lone one as before). Inside function(), before its thunks are made.
  void compile_ahead(const std::vector<std::pair<const Kernel*, std::string>>& kernels, int threads);

  KernelCacheKey cache_key(const Kernel& kernel) const;

 private:
  KernelCache& cache_;
  CodegenOptions options_;
  std::mutex mutex_;
  std::map<std::string, KernelFn> linked_;  // cache key text -> entry point
  std::set<std::string> compile_alone_;      // keys compile_ahead left to get(), miss reported
};

// The process-wide compiler for (cache_dir, options).
KernelCompiler& kernel_compiler_for(const std::string& cache_dir, const CodegenOptions& options);

// The optimized module's text.
std::string optimized_ir(const Kernel& kernel, const CodegenOptions& options);

}  // namespace tgc::cpu
