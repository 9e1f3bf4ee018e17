// FunctionAccess: what saving and loading a Function need of its insides (frontend/api/save.cpp,
// docs/save.md): a function taken apart into the parts a file holds, and made again from them.
#pragma once

#include <tgc/function.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frontend/api/device_ranks.h"
#include "frontend/api/shape_guard.h"
#include "ops/core/graph.h"
#include "runtime/config.h"
#include "runtime/kernel_uses.h"

namespace tgc {

struct FunctionParts {
  std::string name;
  Config config;  // the function's own (global config and its options)
  bool borrow_outputs = false;
  bool device_result = false;
  Graph raw_graph;  // as built: the outputs, then one output per update
  size_t num_outputs = 0;
  std::vector<std::shared_ptr<SharedValue>> update_targets;
  // The program that ran last, optimized, and the shared shapes it assumed. make() links it as
  // it is when the shared values have those shapes (else it optimizes raw_graph again).
  std::optional<Graph> optimized;
  std::vector<ShapeGuard::Fact> facts;
  // The kernel-cache entries the function's compiles and calls used (parts() only).
  std::vector<KernelUses::Use> kernels;
};

struct FunctionAccess {
  // `f`'s parts, read under its compile lock. ValueError for what a file cannot hold: a
  // data-parallel function (its ranks live in this launch), one made for its graph only.
  static FunctionParts parts(const Function& f);
  // The variables `f` updates, in the order of its update outputs (raw_graph's outputs past
  // num_outputs()), without taking the function apart.
  static const std::vector<std::shared_ptr<SharedValue>>& update_targets(const Function& f);
  // A function from parts, compiled as function() compiles (linked from `optimized` when it
  // applies). The caller has checked the parts (save.cpp reads them from a file).
  static Function make(FunctionParts parts);
  // A function over several ranks of this process, one per slot, as function() makes one for
  // data_parallel.devices (the tests give slots whose groups meet in shared memory).
  static Function on_ranks(const std::vector<Var>& inputs, const std::vector<Var>& outputs, const Updates& updates,
                           const FunctionOptions& options, std::vector<RankSlot> slots);
};

}  // namespace tgc
