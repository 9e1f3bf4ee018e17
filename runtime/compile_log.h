// CompileLog: what one function() compile spent, phase by phase, and why each kernel it
// did not find in the kernel cache was missing (JAX's explain_cache_misses). function() opens
// one per compile on its thread (CompileLogScope); the kernel compilers of every backend
// report into it; log_compiles=true prints it and the profile takes its codegen time.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tgc {

// One kernel the cache did not have.
struct KernelCacheMiss {
  std::string backend;  // "llvm", "cuda", "opencl"
  std::string kernel;   // the kernel for a person: its symbol or label
  std::string reason;   // KernelCache's explanation ("new key: ...", "flags changed: ...")
};

// Per backend: kernels compiled from source or IR (codegen) and kernels loaded from the
// cache's bytes or linked into the process or device (load).
struct BackendCompileTimes {
  double codegen_s = 0;
  double load_s = 0;
  int compiled = 0;
  int loaded = 0;
  int threads = 1;  // the most threads that compiled at once
};

class CompileLog {
 public:
  // `explain_misses`: whether a miss should be explained by reading the keys of the
  // cache's other entries (a directory scan: done only when the log will be printed).
  explicit CompileLog(bool explain_misses = false) : explain_misses_(explain_misses) {}
  CompileLog(const CompileLog&) = delete;
  CompileLog& operator=(const CompileLog&) = delete;

  bool explain_misses() const { return explain_misses_; }
  // Thread-safe: kernels may be compiled on worker threads of one compile.
  // `kernels`: how many kernels the time compiled (0 for work that compiles none by itself,
  // such as rendering the source a cache key is taken from).
  // Kernels compiled on several threads at once report the wall time once, with `threads`.
  void add_codegen(std::string_view backend, double seconds, int kernels = 1, int threads = 1);
  void add_load(std::string_view backend, double seconds, int kernels = 1);
  void add_miss(KernelCacheMiss miss);
  // A library's one-time setup in this process (a cuBLAS handle and its workspace), made
  // while thunks were made: part of the link phase, listed on its own line.
  void add_library_setup(std::string what, double seconds);

  std::map<std::string, BackendCompileTimes> backends() const;
  std::vector<KernelCacheMiss> misses() const;
  std::vector<std::pair<std::string, double>> library_setups() const;
  double codegen_seconds() const;  // over all backends
  double load_seconds() const;

 private:
  bool explain_misses_;
  mutable std::mutex mutex_;
  std::map<std::string, BackendCompileTimes> backends_;
  std::vector<KernelCacheMiss> misses_;
  std::vector<std::pair<std::string, double>> library_setups_;
};

// The log of the compile running on this thread; nullptr outside function() (a kernel
// compiled by `tgc emit` or a test reports nowhere).
CompileLog* current_compile_log();

// Makes `log` the current one on this thread until destroyed (restoring the previous one,
// so a compile inside a compile reports to its own log).
class CompileLogScope {
 public:
  explicit CompileLogScope(CompileLog* log);
  ~CompileLogScope();
  CompileLogScope(const CompileLogScope&) = delete;
  CompileLogScope& operator=(const CompileLogScope&) = delete;

 private:
  CompileLog* previous_;
};

// The phases of one compile, as log_compiles prints them (seconds). `link_s` excludes the
// codegen and load inside linking; `setup_s` is making the backends (device, library handles).
struct CompilePhases {
  double setup_s = 0;
  double optimize_s = 0;
  double codegen_s = 0;
  double link_s = 0;
  double load_s = 0;
  // Kernels compiled from source or IR (not loaded from the kernel cache), every backend's:
  // 0 for a warm start, or a saved function whose kernels were in its file.
  int kernels_compiled = 0;
  // The optimized graph came from the program cache (no pass ran).
  bool program_from_cache = false;
  std::vector<std::pair<std::string, double>> passes;  // in order, printed with `with_passes`
};

// The lines log_compiles prints for function `name` (each starts "tgc: compile 'name'").
std::string format_compile_log(const std::string& name, const CompilePhases& phases, const CompileLog& log,
                               bool with_passes);

}  // namespace tgc
