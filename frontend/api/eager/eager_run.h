// Runs recorded eager graphs: each distinct structure (eager_structure.h) is compiled once by
// function() for its device and kept in a process-wide cache of compiled calls (least
// recently used dropped past a bound), so a loop of eager operations compiles on its first
// pass only and shares kernels with function()'s programs through the kernel cache.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <tgc/function.h>

#include "frontend/api/eager/eager_expr.h"

namespace tgc::eager_impl {

// The values of `outputs`, with each leaf bound to its tensor, computed on `device`: device
// tensors there (asynchronous: the work is enqueued on the device's stream), host tensors on
// the host. Outputs may share the leaves' buffers (views). `config`: keys of the compiled call
// on top of the global config (the conformance suite's floatX and cache_dir), part of the
// cache's key.
std::vector<Tensor> run_recorded(const std::vector<Var>& outputs, const std::vector<Leaf>& leaves, Device& device,
                                 const std::map<std::string, std::string>& config = {});

// The compiled call run_recorded calls for these outputs and leaves (compiled on a miss).
std::shared_ptr<Function> compiled_call(const std::vector<Var>& outputs, const std::vector<Leaf>& leaves,
                                        Device& device, const std::map<std::string, std::string>& config = {});

// The number of compiled calls in the cache, and its bound (for tests and docs/eager.md).
size_t compiled_calls_cached();
inline constexpr size_t kMaxCompiledCalls = 1024;

}  // namespace tgc::eager_impl
