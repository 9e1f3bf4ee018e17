// The linker: lays a Graph out as a runtime Program — one storage slot per variable, one
// thunk per node in toposort order, the point after which each intermediate is dead, and
// which dead buffers later outputs take (inplace ops' inputs, the memory plan).
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

struct LinkOptions {
  // Hand dead buffers to later outputs (compiler/memory_plan.h); memory_plan_enabled(config).
  bool plan_memory = true;
  // The function's allow_gc: the plan differs when every buffer is kept across calls.
  bool allow_gc = true;
  // Makes the thunks of nodes placed on a device (Node::placement() != Host); null when
  // the function runs on the host only.
  const Backend* device_backend = nullptr;
};

// Inplace ops (Op::inplace_input) get their input's buffer through Thunk::inplace when the
// schedule shows that input dead after them and the buffer the function's own (else they
// compute into a fresh buffer, which is always correct).
// Host nodes get `backend`'s thunks, device nodes options.device_backend's. A transfer of a
// constant to the device is carried out here, once: the device copy becomes a constant slot.
LinkedProgram link(const Graph& graph, const Backend& backend, const LinkOptions& options = {});

}  // namespace tgc
