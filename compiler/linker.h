// The linker: lays a Graph out as a runtime Program — one storage slot per variable, one
// thunk per node in toposort order, and the point after which each intermediate is dead.
#pragma once

#include <memory>
#include <vector>

#include "compiler/backend.h"
#include "ops/core/graph.h"
#include "runtime/program.h"

namespace tgc {

struct LinkedProgram {
  Program program;
  std::vector<int> input_slots;  // slot of graph.inputs()[i]
  // Slots the caller fills before each run from shared storage.
  std::vector<std::pair<int, std::shared_ptr<SharedValue>>> shared_slots;
};

LinkedProgram link(const Graph& graph, const Backend& backend);

}  // namespace tgc
