// Lowering: a fused group of graph nodes (elementwise nodes, optionally one reduction with
// its elementwise prologue and epilogue) becomes one Kernel. Fusion decides the groups;
// this file only translates them, so every backend sees the same kernel for the same group.
#pragma once

#include <vector>

#include "compiler/kernel/kernel_ir.h"
#include "ops/core/node.h"

namespace tgc {

// What a node can be inside a kernel.
enum class FusionRole {
  None,         // not fusable (library calls, shape ops, indexing, ...)
  Elementwise,  // an Elemwise node
  Reduction,    // a CAReduce (sum/prod/max/min/all/any) or Mean node
};
FusionRole fusion_role(const Node& node);

struct FusedGroup {
  std::vector<Node*> nodes;     // topological order; each Elementwise or Reduction
  std::vector<VarPtr> inputs;   // variables read from outside the group, in order
  std::vector<VarPtr> outputs;  // variables of the group read outside it, in order
};

struct LoweredGroup {
  Kernel kernel;
  // The tensors the kernel reads, in kernel input order: the group's inputs minus the 0-d
  // constants folded into the kernel as Constant values.
  std::vector<VarPtr> inputs;
};

// Translates the group. Every Elemwise becomes its operand casts plus one Op value (Cast
// values appear only where the signature converts); reductions become Reduce values. Nodes
// (and 0-d constants) that compute the same thing share one value: no value repeats another.
// InternalError when the group breaks the Kernel IR's rules (fusion's bug, not the user's).
LoweredGroup lower_group(const FusedGroup& group);

}  // namespace tgc
