// KernelUses: which kernel-cache entries a function's compile and calls used, so a saved
// function can ship its compiled kernels (docs/save.md) and a server loads them instead of
// compiling. A KernelUseScope makes a record current on its thread; KernelCache::get (a hit)
// and put add the key, and so do the compilers' in-process tables, which find a kernel a
// previous function made without asking the cache (cpu::KernelCompiler::link).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/kernel_cache.h"

namespace tgc {

class KernelUses {
 public:
  struct Use {
    KernelCache* cache;  // process-wide (kernel_cache_for): outlives every function
    KernelCacheKey key;
  };
  KernelUses();
  void add(KernelCache& cache, const KernelCacheKey& key);
  // Unique in the process (an address may be reused by a later record).
  uint64_t id() const { return id_; }
  // Each entry once, in key order.
  std::vector<Use> uses() const;

 private:
  const uint64_t id_;
  mutable std::mutex mutex_;
  std::map<std::string, Use> uses_;  // by key text
};

// Makes `uses` the thread's record until the scope ends (the previous one comes back).
class KernelUseScope {
 public:
  explicit KernelUseScope(KernelUses* uses);
  ~KernelUseScope();
  KernelUseScope(const KernelUseScope&) = delete;
  KernelUseScope& operator=(const KernelUseScope&) = delete;

 private:
  KernelUses* previous_;
};

// Adds the entry to the thread's record, if one is current (a thread-local read otherwise).
void note_kernel_use(KernelCache& cache, const KernelCacheKey& key);
// For tables that keep a kernel for the process (backends/gpu/process_modules.h, cuBLASLt's
// plans): notes `uses` in the thread's record on each use of the kernel, unless that record
// (its id in `noted`) has them already, so a loop of one function's calls notes them once.
void note_kernel_uses_once(const std::vector<KernelUses::Use>& uses, uint64_t& noted);

}  // namespace tgc
