// The process's LLVM JIT for kernels: host target detection, the O3 pipeline with libmvec
// vector math, compilation to object code, the kernel cache (memory + disk) and ORC LLJIT
// loading. A compiler instance shares the kernels it has linked while some thunk holds them,
// so the same kernel in another live function is neither recompiled nor re-linked; a kernel
// no live function uses is unloaded (its code and JIT state freed).
#pragma once

#include <atomic>
#include <map>
#include <memory>
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
// were loaded from cached object code; how many are linked now, and how many were unloaded.
struct JitStats {
  size_t compiled = 0;
  size_t loaded = 0;
  size_t resident = 0;
  size_t unloaded = 0;
};
JitStats jit_stats();

// A kernel linked into the JIT, in a JITDylib of its own. `fn` is valid while this object
// lives; the last owner's release removes the JITDylib, which frees the kernel's code.
class LinkedKernel {
 public:
  LinkedKernel(KernelFn fn, std::string dylib) : fn(fn), dylib_(std::move(dylib)) {}
  ~LinkedKernel();
  LinkedKernel(const LinkedKernel&) = delete;
  LinkedKernel& operator=(const LinkedKernel&) = delete;
  const KernelFn fn;

 private:
  std::string dylib_;
};

class KernelCompiler {
 public:
  // Kernels are cached in `cache` (memory and its directory) under a key holding the
  // kernel, the renderer version, LLVM's version, the host target and the options.
  KernelCompiler(KernelCache& cache, const CodegenOptions& options) : cache_(cache), options_(options) {}

  // The linked kernel: the one a live holder already has, else linked from the cache's object
  // code, else rendered, optimized and compiled now (then stored in the cache). A thunk holds
  // the result; when the last holder lets go the kernel is unloaded (the disk cache still has
  // it). The time spent and a miss's reason go to the current compile log
  // (runtime/compile_log.h), a miss under `label` (the node, for a person) when one is given.
  std::shared_ptr<const LinkedKernel> link(const Kernel& kernel, const std::string& label = "");

  // link()'s entry point, kept loaded as long as this compiler lives (for tests and tools
  // that call a kernel without holding it).
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
  // Cache key text -> the kernel while some holder keeps it. Expired slots are swept when the
  // table has doubled since the last sweep (the keys hold Kernel IR text: kilobytes each).
  std::map<std::string, std::weak_ptr<const LinkedKernel>> linked_;
  size_t sweep_at_ = 64;
  std::map<std::string, std::shared_ptr<const LinkedKernel>> pinned_;  // get()'s
  std::set<std::string> compile_alone_;      // keys compile_ahead left to link(), miss reported
};

// The process-wide compiler for (cache_dir, options).
KernelCompiler& kernel_compiler_for(const std::string& cache_dir, const CodegenOptions& options);

// The optimized module's text.
std::string optimized_ir(const Kernel& kernel, const CodegenOptions& options);

}  // namespace tgc::cpu
