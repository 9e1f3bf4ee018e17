// Memory planning: within one call, a buffer whose values are all dead is handed to a later
// output of the same dtype and size instead of being freed while the next one is allocated
// (Program's Thunk::reuse). The linker runs it; optimizer_excluding=memory_plan turns it off.
#pragma once

#include <vector>

#include "compiler/passes/pass_context.h"
#include "ops/core/graph.h"
#include "runtime/config.h"
#include "runtime/program.h"
#include "runtime/type.h"

namespace tgc {

// What the plan knows of one slot from the graph (compiler/buffer_lifetimes.h).
struct SlotFacts {
  Type type;          // the static type of the slot's variable
  bool own = false;   // its buffer is the function's own (never seen by the caller)
  int root = -1;      // the slot whose buffer it shares (itself unless it is a view)
};

// Adds `reuse` handovers to the thunks of `program` (whose `inplace` handovers are already
// set). A donor is a buffer of the function's own that no later thunk reads (all its
// views dead) and that no inplace op took; an heir is a thunk output that is no view and
// takes no inplace buffer.
// - allow_gc on: a buffer dead after thunk i goes to an output of thunk i+1 with the same
//   dtype and static shape (unknown dims alike), kept out of thunk i's frees until then. The
//   peak is never higher than without the plan (nothing is held longer than one thunk's
//   boundary); allocations are fewer. When the sizes differ at run time the op allocates
//   and the buffer is dropped, as gc would have.
// - allow_gc off (every buffer is kept across calls): a dead buffer goes to any later output
//   of the function's own (not a result: the caller takes those) whose fully known static
//   shape has the same dtype and byte size, so that slots whose lifetimes do not overlap
//   share one buffer; a chain of such handovers (and of inplace ones) closes into a loop
//   (close_handover_loops). Unknown dims are not guessed here: a wrong guess would cost an
//   allocation on every call, where the kept buffers cost none.
void plan_memory(Program& program, const std::vector<SlotFacts>& facts, bool allow_gc);

// For allow_gc off, where every slot keeps its buffer for the next call: a chain of
// handovers s0 -> s1 -> ... -> sn (inplace or planned) leaves the one buffer in sn, so s0's
// producer takes, on the next call, the buffer sn kept (when sn is the function's own and no
// view). Without it, a chain would allocate its first buffer anew on every call.
void close_handover_loops(Program& program, const std::vector<SlotFacts>& facts);

// The pipeline's "memory_plan" entry (phase memory). The plan is a decision about the
// Program's buffers, made by the linker from the schedule, so this leaves the graph as it
// is and returns false; the entry is how optimizer_excluding, the docs and the pass
// timings know the name.
bool memory_plan_pass(Graph& graph, const PassContext& ctx);

// Whether functions compiled under `config` plan memory: the optimizer's mode includes the
// memory phase (fast_run) and optimizer_excluding does not name "memory_plan".
bool memory_plan_enabled(const Config& config);

}  // namespace tgc
