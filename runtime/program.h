// Program: what a compiled function runs — storage slots and an ordered list of thunks over
// them, with the points where each intermediate dies. Knows nothing of graphs.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runtime/tensor.h"

namespace tgc {

// Where a thunk's time goes in the profile's cpu/gpu/transfer split. Set from the node's
// placement by the compiler, never guessed from a name.
enum class ThunkKind { Cpu, Gpu, Transfer, Comm };
// "cpu", "gpu", "transfer", "comm" (collectives: data moved between ranks)
std::string thunk_kind_name(ThunkKind k);

// Runs one operation: reads input tensors, fills `outputs` (which may hold this thunk's
// tensors from the previous call, for reuse when allow_gc is off).
using ThunkFn = std::function<void(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs)>;

// A buffer offered to a thunk's output before it runs: the tensor in `slot` moves into
// outputs[output], whose op reuses its buffer through ensure_output() (or
// ensure_output_inplace()) when nothing else holds it and its size fits, and drops it
// otherwise. The compiler proves that the slot's value is dead by then.
struct Handover {
  int output;
  int slot;
  bool operator==(const Handover&) const = default;
};

// One test of a lazy branch (ifelse): holds when the scalar condition in `slot` is nonzero ==
// `when`. `producer` is the thunk that computes the slot (-1: a bound or constant slot, known
// from the start); a test whose producer has not run yet counts as holding (the thunk runs).
struct BranchTest {
  int slot;
  int producer;
  bool when;
  bool operator==(const BranchTest&) const = default;
};

struct Thunk {
  std::string op_name;   // "Elemwise{exp}": the per-op table groups by it
  std::string op_class;  // "Elemwise": the per-op-class table groups by it
  std::string label;     // "p_1 = dot(x, w)": the per-node table and error messages use it
  ThunkKind kind = ThunkKind::Cpu;
  // The device a Gpu/Transfer thunk enqueues work on (its stream's timer for the profile);
  // nullptr for host thunks.
  Device* device = nullptr;
  // Its device work reads its inputs and writes its outputs and nothing else that another
  // thunk's work touches (no shared workspace, as cuBLAS has): a recorded call may run it
  // beside other work (runtime/capture_branches.h). Said by the backend; false is safe.
  bool self_contained = false;
  // For a thunk that is not self-contained: which shared resource it is ordered by (0: the
  // device's libraries' workspaces, as cuBLAS's; 1: a collective engine's order, NCCL's).
  // Thunks of one domain stay in order in a recording; domains run beside each other, so a
  // gradient's all_reduce overlaps the products that compute the next gradients.
  int serial_domain = 0;
  // A Comm thunk's bus bandwidth per byte of algorithm bandwidth, as nccl-tests define it
  // (all_reduce 2(n-1)/n, all_gather and reduce_scatter (n-1)/n, broadcast 1): the profile
  // reports the bus bandwidth a collective reached. 0 for other thunks.
  double bus_factor = 0;
  // Its device work writes nothing once the device's error word is set (a scatter checks it
  // first): an update it writes into its variable's buffer survives a recorded call whose
  // deferred index check raises (runtime/call_replay.h). Said by the backend.
  bool skips_writes_once_flagged = false;
  std::vector<int> inputs;   // slot indices read
  std::vector<int> outputs;  // slot indices written
  std::vector<int> frees;    // intermediates whose last reader this is (dropped under allow_gc)
  // Output k may take the buffer of input slot s, which dies at this thunk: the op computes
  // in place (Op::inplace_input), reading the input while it overwrites it.
  std::vector<Handover> inplace;
  // Output k may take the buffer of slot s, dead since an earlier thunk (the memory plan;
  // with allow_gc off also the buffer a later slot kept from the previous call).
  std::vector<Handover> reuse;
  // Lazy branches (compiler/branch_guards.h): the thunk runs only when one of these terms holds,
  // each a conjunction of tests; empty: always. A skipped thunk's outputs stay unset this call,
  // its frees still apply and the buffers handed to it are dropped (allow_gc) or left in place.
  std::vector<std::vector<BranchTest>> guard;
  // Its op picks among its inputs by a condition (IfElse): an input whose producer was skipped
  // reaches it undefined instead of raising. Output k is input `then_inputs[k]` when the
  // one-element input `condition` is nonzero, else input `else_inputs[k]`; a recording that
  // holds conditional work (runtime/recorded_branches.h) records that choice instead of
  // running the thunk.
  struct Choice {
    int condition = 0;
    std::vector<int> then_inputs, else_inputs;
    bool operator==(const Choice&) const = default;
  };
  std::optional<Choice> choice;
  ThunkFn run;
  // For a thunk that writes a shared variable's buffer in place (Program::first_variable_write):
  // raises what `run` would raise for these inputs, writing nothing (Op::validate).
  std::function<void(const std::vector<Tensor>& inputs)> check;
};

struct Program {
  int num_slots = 0;
  std::vector<Thunk> thunks;
  std::vector<int> bound_slots;   // filled by the caller before each run (arguments, shared values)
  std::vector<std::pair<int, Tensor>> constants;  // filled once, never freed
  std::vector<int> output_slots;  // read by the caller after a run (may repeat, may be bound)
  // The thunks from this index on write shared variables' new values into the variables' own
  // buffers (an inplace handover from a bound slot; compiler/update_in_place.h). Before the
  // first of them runs, the executor calls every one's `check`, so that a call that fails
  // leaves every variable as it was. thunks.size() (or more) when no thunk does.
  size_t first_variable_write = SIZE_MAX;

  // Slots that are neither bound, constant nor output: what allow_gc frees and memory
  // profiling counts.
  std::vector<bool> intermediate_mask() const;
};

}  // namespace tgc
