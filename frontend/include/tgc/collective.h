// Public API: collectives over the ranks of a launch (processes started by mpirun or
// `tgc launch`, one rank each), as graph ops with gradients: all_reduce, all_gather,
// reduce_scatter, broadcast. Host tensors move through MPI, CUDA tensors through NCCL; a
// program started alone is a world of one rank, where each collective is the identity, so
// the same program runs with and without a launcher. See docs/distributed.md.
#pragma once

#include <memory>
#include <string_view>

#include <tgc/var.h>

#include "runtime/comm/world.h"
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

using CommGroupPtr = std::shared_ptr<CommGroup>;

// The launch's ranks (one per process). rank() / world_size() / local_rank() are its.
CommGroupPtr world();
int rank();
int world_size();
int local_rank();

// Every rank gets op ("sum", "mean", "max", "min") over the ranks of x, elementwise. Every
// rank of the group must call it with the same type and shape, in the same order as the
// other collectives. A null group is world().
Var all_reduce(const Var& x, std::string_view op = "sum", const CommGroupPtr& group = nullptr);
// The ranks' x concatenated along `axis` in rank order.
Var all_gather(const Var& x, int axis = 0, const CommGroupPtr& group = nullptr);
// op over the ranks of x, then rank r keeps the r-th of size equal parts along `axis` (its
// dim must be a multiple of the group's size).
Var reduce_scatter(const Var& x, int axis = 0, std::string_view op = "sum", const CommGroupPtr& group = nullptr);
// Every rank gets root's x.
Var broadcast(const Var& x, int root = 0, const CommGroupPtr& group = nullptr);

TGC_API_END
}  // namespace tgc
