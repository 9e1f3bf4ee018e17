// The executor: runs a Program's thunks in order over a slot vector, frees intermediates
// at their last use (allow_gc), times every thunk when profiling, and on failure names
// the node that failed and leaves no half-computed intermediates behind.
#pragma once

#include <functional>

#include <vector>

#include "runtime/program.h"

namespace tgc {

class Profiler;

class CaptureBranches;
class RecordedBranches;

struct ExecOptions {
  bool allow_gc = true;
  bool sync = false;  // wait for each thunk's device work before the next (debugging)
  // While a call is recorded on a device that records graphs: each thunk's work follows only
  // the work it depends on (runtime/capture_branches.h). nullptr: one sequence.
  CaptureBranches* branches = nullptr;
  // While a call is recorded on a device that records conditional work: guarded thunks are
  // recorded inside it and choices as conditional copies (runtime/recorded_branches.h)
  // instead of being skipped by a condition read on the host. nullptr: skipped as below.
  RecordedBranches* conditionals = nullptr;
  // Called once, after the checks of the thunks that write shared variables in place and
  // before the first of them runs (Program::first_variable_write), when the program has such
  // thunks: a rank of a function over several devices votes there (frontend/api/device_ranks.h),
  // and what it throws fails the call with every variable intact.
  const std::function<void()>* before_variable_writes = nullptr;
};

// `slots` has program.num_slots entries with bound slots and constants already filled.
// Before a thunk runs, the tensors named by its handovers (Thunk::inplace, Thunk::reuse)
// move from their slots into its outputs, for the op to reuse their buffers.
// A thunk whose guard fails (Thunk::guard: lazy ifelse branches) is skipped: it runs
// nothing, records no call in the profile, leaves its outputs unset, still applies its frees
// and drops the buffers handed to it (allow_gc). Condition values are read once per call; a
// condition on a device is copied back, which waits for the device.
// On success the output slots hold results; intermediates are dropped when allow_gc is on
// and kept (for buffer reuse on the next run) when it is off. On failure the Error thrown
// by the thunk is rethrown with the thunk's label as its location, and every intermediate
// and output slot is cleared.
void execute(const Program& program, std::vector<Tensor>& slots, const ExecOptions& options,
             Profiler* profiler);

}  // namespace tgc
