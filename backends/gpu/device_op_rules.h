// The table of device-op rules: for each kind of node a GPU runs, whether a node is one
// (matches), the thunk that runs it (make), and whether that thunk touches nothing but its
// operands (self_contained: a recorded call may run it beside other work). A GPU backend's
// device-op list is this table plus its library rules (cuBLAS, CLBlast, user CUDA source),
// so a node runs on every GPU API or on none, and the dispatch is written once.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backends/gpu/gpu_device.h"
#include "ops/core/node.h"
#include "runtime/config.h"
#include "runtime/program.h"

namespace tgc::gpu {

struct DeviceOpRule {
  std::string_view name;  // "Composite", "transfer", "gather", ... (docs/gpu.md lists them)
  // Whether the rule is about `node`'s op at all (its class).
  bool (*covers)(const Node& node);
  // For a covered node: "" when the rule runs it on the device, else why it cannot (a dtype,
  // an index form, a non-constant alpha), which placement reports (assert_no_cpu_op, tgc
  // show). nullptr: every covered node runs.
  std::string (*declines)(const Node& node);
  ThunkFn (*make)(GpuDevice& device, const Node& node, const Config& config);
  bool self_contained;
  // Not self-contained: which shared resource orders it (Thunk::serial_domain).
  int serial_domain = 0;
  // Whether the rule runs nodes that read or make float16/bfloat16 tensors. A rule says so
  // once its kernels or library calls handle half storage (docs/precision.md); until then
  // find_rule declines such nodes for it, and they run on the host (placement says why).
  bool half_types = false;
};

// The rule that runs `node` (nullptr: none), or in `why` the reason the first rule covering
// it gives, or "no device implementation of <op class>".
const DeviceOpRule* find_rule(std::span<const DeviceOpRule> rules, const Node& node, std::string* why);

// The rules every GPU API shares, in match order: each family's rules (core_rules.h, ...)
// one after the other, as device_op_rules.cpp's family list names them.
std::span<const DeviceOpRule> shared_device_op_rules();

}  // namespace tgc::gpu
