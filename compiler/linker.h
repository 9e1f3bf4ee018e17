// The linker: lays a Graph out as a runtime Program — one storage slot per variable, one
// thunk per node in toposort order, the point after which each intermediate is dead, and
// which dead buffers later outputs take (inplace ops' inputs, the memory plan).
#pragma once

#include <memory>
#include <vector>

#include "compiler/backend.h"
#include "compiler/passes/pass_context.h"
#include "ops/core/graph.h"
#include "runtime/program.h"

namespace tgc {

struct LinkedProgram {
  Program program;
  std::vector<int> input_slots;  // slot of graph.inputs()[i]
  // Slots the caller fills before each run from shared storage.
  std::vector<std::pair<int, std::shared_ptr<SharedValue>>> shared_slots;
  // Entries of shared_slots whose buffer a thunk writes the variable's update into
  // (Program::first_variable_write): the caller lets such a write disregard the variable's own
  // reference (Buffer::owner_refs) while it runs the program.
  std::vector<size_t> written_in_place;
};

struct LoopCompileContext;  // compiler/scan/scan_thunk.h

struct LinkOptions {
  // Hand dead buffers to later outputs (compiler/memory_plan.h); memory_plan_enabled(config).
  bool plan_memory = true;
  // The function's allow_gc: the plan differs when every buffer is kept across calls.
  bool allow_gc = true;
  // Makes the thunks of nodes placed on a device (Node::placement() != Host); null when
  // the function runs on the host only.
  const Backend* device_backend = nullptr;
  // Per graph output, the shared variable it updates (PassContext::updates): an inplace op
  // writing an update into its variable's buffer gets that buffer when the schedule still
  // allows it (compiler/update_in_place.h).
  std::vector<const SharedValue*> updates = {};
  // How loops (Scan nodes) compile their inner graphs: the function's backends and pipeline.
  // Null in a graph without loops.
  const LoopCompileContext* loops = nullptr;
  // The shapes of shared variables' values the graph was optimized for (PassContext::
  // shared_shapes), so that the device backend learns the shapes calls are expected to have
  // (Backend::prepare); null: the static types alone.
  const SharedShapeFacts* shape_facts = nullptr;
};

// Nodes run in schedule() order (compiler/update_in_place.h: the updates written into their
// variables last). Inplace ops (Op::inplace_input) get their input's buffer through
// Thunk::inplace when the schedule shows that input dead after them and the buffer the
// function's own, or the input the shared variable whose update they compute and its old value
// read by nothing later (else they compute into a fresh buffer, which is always correct).
// Host nodes get `backend`'s thunks, device nodes options.device_backend's. A transfer of a
// constant to the device is carried out here, once: the device copy becomes a constant slot.
LinkedProgram link(const Graph& graph, const Backend& backend, const LinkOptions& options = {});

}  // namespace tgc
