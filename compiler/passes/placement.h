// Device placement and transfer elimination (Theano's gpu_from_host optimisations): with a
// GPU device, every node the device backend implements runs there, HostToDevice and
// DeviceToHost nodes are inserted where a value crosses, and a value crosses at most once
// per direction. Transfers that would undo each other are never made, and the user's
// gpu_from_host markers cancel against values already on the device.
#pragma once

#include <vector>

#include "compiler/passes/pass_context.h"
#include "ops/core/graph.h"

namespace tgc {

// Sets every node's placement from ctx.placement and rewires the graph with transfer nodes.
//   - Values: inputs and constants start on the host; float32 shared variables start on the
//     device (they live there); a node's outputs are where the node runs. A shared variable
//     of another dtype that every reader reads on the device, and that may move
//     (may_move_shared), lives there as well.
//   - A node runs on the device when runs_on_device(node) says so, else on the host; each
//     input that is elsewhere is read through one transfer node per value and direction.
//   - A user's HostToDevice (gpu_from_host) marks a value that must be on the device; it is
//     removed and its value moved there only if it is not already.
//   - Graph outputs end where output_locations says (default: the host, except values the
//     user marked with gpu_from_host, which stay on the device).
// With a host target every transfer node is removed (the markers mean nothing on the cpu).
// With a GPU target and ctx.host_reasons set, every node left on the host (transfers aside)
// gets its reason there: the device backend's host_reason, or "no device implementation of
// <op class>" when it says nothing more.
// Returns whether the graph changed.
bool place_on_device(Graph& graph, const PassContext& ctx);

// Where each of `shared` (root variables of a placed graph) lives for the function: true for
// the device. Float32 shared variables live there (the design's rule); one of another dtype
// when placement moved it there because every reader runs on the device
// (PlacementTarget::may_move_shared). All false for a host target.
std::vector<bool> shared_on_device(const Graph& graph, const std::vector<const Variable*>& shared,
                                   const PlacementTarget& target);

// The op's name as Theano prints a placed node: host nodes as their op's name(); device
// nodes with a Gpu prefix ("GpuElemwise{exp}" for a one-operation kernel,
// "GpuElemwise{Composite{...}}", "GpuCAReduce{Composite{...}}" for a reduction kernel,
// "GpuGemm{...}"), transfers as GpuFromHost / HostFromGpu. Used by tgc show and the profile.
std::string placed_op_name(const Node& node);

}  // namespace tgc
