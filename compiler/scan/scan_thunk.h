// The thunk of a Scan node: its inner graph optimized by the function's own pipeline and
// linked with the function's backends (on the node's device when the node is placed there:
// the inner inputs and results stay on the device, so a step launches kernels and nothing
// crosses to the host), then run step by step through run_scan(). Each step executes the
// inner program; on a device that records calls (CUDA graphs) a loop with a fixed number of
// steps is recorded whole with the rest of the call.
#pragma once

#include "compiler/backend.h"
#include "compiler/passes/pass_context.h"
#include "ops/core/node.h"
#include "runtime/program.h"

namespace tgc {

struct LoopCompileContext {
  const Backend* host_backend = nullptr;
  const Backend* device_backend = nullptr;  // null: the function runs on the host
  const PassContext* pass_context = nullptr;  // the function's (config, exclusions, placement)
  bool plan_memory = true;
};

// Whether `node` is a loop whose thunk make_loop_thunk() makes (the linker asks).
bool is_loop_node(const Node& node);

// Compiles the inner graph now (all compilation happens in function()).
ThunkFn make_loop_thunk(const Node& node, const LoopCompileContext& context);

}  // namespace tgc
