// bucket_collectives: DDP's gradient buckets. A data-parallel step sums each parameter's
// gradient over the ranks with an all_reduce (compiler/data_parallel.h), one NCCL or MPI call
// each, whose cost below a few hundred KiB is its latency, the same for a bias of 40 bytes
// as for one of 40 KiB. So consecutive all_reduce(sum)s of one group and dtype, each of a
// value whose size is known and under kBucketSmallBytes, are fused into buckets of up to
// kBucketBytes: the values are flattened and concatenated, summed by one all_reduce, and
// split back into their shapes. "Consecutive" is the order the schedule computes their
// inputs in, so a bucket waits only for gradients that are ready at about the same point
// of the backward pass (a layer's bias gradient and a small weight's), and the larger
// gradients keep their own calls, which start as soon as each exists (collective_schedule.h).
#pragma once

#include <cstddef>

#include "compiler/passes/pass_context.h"
#include "ops/core/graph.h"

namespace tgc {

// A value at least this large keeps its own all_reduce.
inline constexpr size_t kBucketSmallBytes = size_t{1} << 20;  // 1 MiB
// A bucket holds at most this much (DDP starts with a 1 MiB bucket, then 25 MiB ones).
inline constexpr size_t kBucketBytes = size_t{4} << 20;  // 4 MiB

// Fuses the buckets. Returns whether the graph changed.
bool bucket_collectives(Graph& graph, const PassContext& ctx);

}  // namespace tgc
