// The optimized-program cache (issue 25; docs/optimizations.md#the-program-cache): a function's
// graph as the optimizer left it, kept in the kernel cache (backend "program") under a key of
// everything the optimizer's result depends on: the graph as built (through the graph codec:
// every op with its parameters, every constant's bytes, the shared variables by position and
// type), the shapes it assumes of them, which outputs update which variable, where results go,
// the configuration keys that decide a program, the device kind and tgc's version and build. A later
// compile of the same function, in this process or another, links the cached graph without
// running a pass; with the kernels in the cache too, a warm start optimizes and compiles nothing.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ops/core/graph.h"
#include "runtime/config.h"
#include "runtime/kernel_cache.h"

namespace tgc {

// Whether a config key is the process's (where caches go, what is printed) rather than the
// program's: saved functions and the program cache leave these out.
bool is_process_setting(const std::string& key);
// The program's config keys and values, "key=value" lines in Config::keys()'s order.
std::string program_config_text(const Config& config);

struct ProgramCacheQuery {
  const Graph* raw = nullptr;                              // the graph as built
  std::vector<std::pair<const SharedValue*, Shape>> facts;  // the shared shapes assumed
  std::vector<const SharedValue*> update_outputs;          // per raw output, the variable it updates
  std::vector<std::shared_ptr<SharedValue>> update_targets;  // the updated variables, in order
  size_t num_results = 0;                                  // raw outputs before the updates
  bool device_result = false;
  std::string config_text;   // program_config_text
  std::string device_kind;   // "cpu", "cuda", "opencl"
  std::string version;       // tgc's version and build (build_identity): another build may optimize otherwise
};

class ProgramCacheEntry {
 public:
  // The entry of `query`, or nullopt when its graph cannot be written (an op without a codec:
  // such functions are optimized every time).
  static std::optional<ProgramCacheEntry> of(const ProgramCacheQuery& query);

  // The cached optimized graph over this function's own variables, if the cache holds one whose
  // every device node `runs_on_device` still accepts (a library may be missing now), with the
  // optimizer's warnings of the compile that stored it. Damaged entries count as absent.
  std::optional<Graph> load(KernelCache& cache, const std::function<bool(const Node&)>& runs_on_device,
                            std::vector<std::string>* warnings) const;
  // Stores `optimized` (a graph over the same variables) and the warnings its optimize gave.
  void store(KernelCache& cache, const Graph& optimized, const std::vector<std::string>& warnings) const;

  const KernelCacheKey& key() const { return key_; }

 private:
  KernelCacheKey key_;
  std::vector<std::shared_ptr<SharedValue>> shared_;  // in the order the key numbered them
};

}  // namespace tgc
