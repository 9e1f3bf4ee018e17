// CompileLog: the per-thread current log and the text log_compiles prints.
#include "runtime/compile_log.h"

#include <fmt/format.h>

#include <algorithm>

namespace tgc {

namespace {

thread_local CompileLog* current_log = nullptr;

std::string ms(double seconds) { return fmt::format("{:.1f} ms", seconds * 1e3); }

}  // namespace

void CompileLog::add_codegen(std::string_view backend, double seconds, int kernels, int threads) {
  std::lock_guard lock(mutex_);
  BackendCompileTimes& b = backends_[std::string(backend)];
  b.threads = std::max(b.threads, threads);
  b.codegen_s += seconds;
  b.compiled += kernels;
}

void CompileLog::add_load(std::string_view backend, double seconds, int kernels) {
  std::lock_guard lock(mutex_);
  BackendCompileTimes& b = backends_[std::string(backend)];
  b.load_s += seconds;
  b.loaded += kernels;
}

void CompileLog::add_miss(KernelCacheMiss miss) {
  std::lock_guard lock(mutex_);
  misses_.push_back(std::move(miss));
}

void CompileLog::add_library_setup(std::string what, double seconds) {
  std::lock_guard lock(mutex_);
  library_setups_.emplace_back(std::move(what), seconds);
}

std::vector<std::pair<std::string, double>> CompileLog::library_setups() const {
  std::lock_guard lock(mutex_);
  return library_setups_;
}

std::map<std::string, BackendCompileTimes> CompileLog::backends() const {
  std::lock_guard lock(mutex_);
  return backends_;
}

std::vector<KernelCacheMiss> CompileLog::misses() const {
  std::lock_guard lock(mutex_);
  return misses_;
}

double CompileLog::codegen_seconds() const {
  std::lock_guard lock(mutex_);
  double s = 0;
  for (const auto& [name, b] : backends_) s += b.codegen_s;
  return s;
}

double CompileLog::load_seconds() const {
  std::lock_guard lock(mutex_);
  double s = 0;
  for (const auto& [name, b] : backends_) s += b.load_s;
  return s;
}

CompileLog* current_compile_log() { return current_log; }

CompileLogScope::CompileLogScope(CompileLog* log) : previous_(current_log) { current_log = log; }
CompileLogScope::~CompileLogScope() { current_log = previous_; }

std::string format_compile_log(const std::string& name, const CompilePhases& p, const CompileLog& log,
                               bool with_passes) {
  const std::string head = fmt::format("tgc: compile '{}'", name);
  const double total = p.setup_s + p.optimize_s + p.codegen_s + p.link_s + p.load_s;
  std::string out = fmt::format("{}: {} (setup {}, optimize {}, codegen {}, link {}, load {})\n", head, ms(total),
                                ms(p.setup_s), ms(p.optimize_s), ms(p.codegen_s), ms(p.link_s), ms(p.load_s));
  if (p.program_from_cache) out += fmt::format("{}:   optimize: the program cache's graph, no pass run\n", head);
  if (with_passes)
    for (const auto& [pass, seconds] : p.passes)  // most passes take well under a millisecond
      out += fmt::format("{}:   pass {}: {:.2f} ms\n", head, pass, seconds * 1e3);
  for (const auto& [backend, b] : log.backends()) {
    if (b.compiled > 0 || b.codegen_s > 0)
      out += fmt::format("{}:   codegen {}: {} kernel{} compiled, {}{}\n", head, backend, b.compiled,
                         b.compiled == 1 ? "" : "s", ms(b.codegen_s),
                         b.threads > 1 ? fmt::format(" ({} threads)", b.threads) : "");
    if (b.loaded > 0 || b.load_s >= 0.5e-4)  // a backend that only rendered loads nothing yet (OpenCL)
      out += fmt::format("{}:   load {}: {} kernel{} loaded, {}\n", head, backend, b.loaded, b.loaded == 1 ? "" : "s",
                         ms(b.load_s));
  }
  for (const auto& [what, seconds] : log.library_setups())
    out += fmt::format("{}:   link: {} made, {}\n", head, what, ms(seconds));
  for (const KernelCacheMiss& m : log.misses())
    out += fmt::format("{}:   cache miss {} {}: {}\n", head, m.backend, m.kernel, m.reason);
  return out;
}

}  // namespace tgc
