// The index ops' rules: which nodes each covers, why it declines some, and its thunk.
#include "backends/gpu/index_rules.h"

#include "backends/gpu/index_thunks.h"
#include "ops/alloc/alloc.h"
#include "ops/alloc/arange.h"
#include "ops/alloc/arange_like.h"
#include "ops/alloc/eye.h"
#include "ops/join/join.h"
#include "ops/join/split.h"
#include "ops/join/split_like.h"
#include "ops/reduce/arg_reduce.h"
#include "ops/shape/reshape_like.h"
#include "ops/subtensor/inc_subtensor.h"
#include "ops/subtensor/subtensor.h"

namespace tgc::gpu {

namespace {

template <typename... Ops>
bool is_one_of(const Node& node) {
  return (... || (dynamic_cast<const Ops*>(&node.op()) != nullptr));
}

const DeviceOpRule kRules[] = {
    // The trailing `true`: the rule takes half tensors (index_op_declines refuses the forms
    // that add or compare in the element type). Arg reductions do not yet.
    // Basic indexing, splits and ReshapeLike (gradients make it) are views of their input.
    {"index view", [](const Node& n) { return is_one_of<Subtensor, Split, SplitLike, ReshapeLike>(n); }, nullptr,
     [](GpuDevice& d, const Node& n, const Config&) { return make_index_view_thunk(d, n); }, true, 0, true},
    // x[idx, ...]: a gather; an index out of range raises the reference's error (a flag the
    // thunk reads, so not self-contained).
    {"gather", [](const Node& n) { return is_one_of<AdvancedSubtensor>(n); }, index_op_declines,
     [](GpuDevice& d, const Node& n, const Config& c) { return make_gather_thunk(d, n, c); }, false, 0, true},
    // set_subtensor / inc_subtensor: strided assign / add, or a scatter (sorted, or float
    // atomics when deterministic=false).
    {"scatter", [](const Node& n) { return is_one_of<IncSubtensor>(n); }, index_op_declines,
     [](GpuDevice& d, const Node& n, const Config& c) { return make_inc_subtensor_thunk(d, n, c); }, false, 0, true},
    {"arg reduce", [](const Node& n) { return is_one_of<ArgReduce>(n); }, index_op_declines,
     [](GpuDevice& d, const Node& n, const Config& c) { return make_arg_reduce_thunk(d, n, c); }, true},
    {"join", [](const Node& n) { return is_one_of<Concatenate, Stack>(n); }, index_op_declines,
     [](GpuDevice& d, const Node& n, const Config& c) { return make_join_thunk(d, n, c); }, true, 0, true},
    {"fill", [](const Node& n) { return is_one_of<Alloc, Fill, Arange, ArangeLike, Eye>(n); }, index_op_declines,
     [](GpuDevice& d, const Node& n, const Config& c) { return make_fill_thunk(d, n, c); }, true, 0, true},
};

}  // namespace

std::span<const DeviceOpRule> index_op_rules() { return kRules; }

}  // namespace tgc::gpu
