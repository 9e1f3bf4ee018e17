// Replaying a whole call as recorded device work (cuda_graphs=auto): a function whose thunks
// all run on one device that can record its work (CUDA stream capture) is recorded on its
// second call with the same bound shapes, and later calls with the same bound values enqueue
// the recording with one launch instead of running the thunks.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/device.h"
#include "runtime/executor.h"
#include "runtime/program.h"

namespace tgc {

// Shared-variable updates of a recorded call: (slot of the new value, the variable's current
// tensor). A recorded call writes each new value into the variable's own buffer at its end
// (unless a thunk already computed it there, in place), so the variable keeps its address and
// the next call's bound values match the recording. The tensor is pointed to, not held: a
// reference of the recording's own would keep an update from being written in place.
using ReplayUpdates = std::vector<std::pair<int, const Tensor*>>;

class CallReplay {
 public:
  // Whether `program` can be recorded at all: every thunk is a device or transfer thunk on
  // `device` (a transfer to the host records as a copy into pinned memory; the replay waits).
  // A lazy ifelse (Thunk::guard, Thunk::choice) is, where the device records conditional work
  // (runtime/recorded_branches.h); elsewhere not: the thunks a call runs depend on a
  // condition's value, which a recording of fixed work cannot read (docs/control-flow.md).
  static bool eligible(const Program& program, const Device& device);
  // Why eligible() is false, in words ("" when it is true): cuda_graph_status() prints it.
  static std::string ineligible_reason(const Program& program, const Device& device);

  // `max_recorded_bytes` (config key cuda_graph_max_size): the memory a recording may keep
  // (its outputs, intermediates and scratch, which node-by-node calls free or reuse). A call
  // that needs more runs long kernels, which a launch per node slows down little: its
  // recording is used once and dropped.
  CallReplay(const Program& program, Device& device, size_t max_recorded_bytes);
  ~CallReplay();
  CallReplay(const CallReplay&) = delete;
  CallReplay& operator=(const CallReplay&) = delete;

  // Serves one call whose bound slots are filled: by replaying a recording made with the
  // same bound values (every bound tensor on the device, at the same address, dtype, shape
  // and strides) whose outputs nobody holds any more, or by recording the call now when the
  // previous call's bound values had the same dtypes, shapes and strides. Returns true when
  // it did: the output slots hold the results and the shared variables named by `updates()`
  // already hold their new values (the caller must not set them). Returns false, having run
  // nothing and changed no slot but output ones it cleared, when the caller must run
  // execute() itself: the first call with new bound values, a bound value on another device,
  // or a call that cannot be recorded (a thunk that waits for the device or copies through
  // staging memory), after which recording is off for this function.
  bool run(std::vector<Tensor>& slots, const ExecOptions& options, const std::function<ReplayUpdates()>& updates);

  // For tests and the docs: how many calls were recorded and replayed, and whether
  // recording was given up (a call that could not be recorded, bound values that never
  // repeat, or a recording that would keep more than cuda_graph_max_size: used once, then
  // dropped).
  int recordings() const { return recordings_; }
  int replays() const { return replays_; }
  // Of the latest recording: how many updates it copies into their variables' buffers at its
  // end (the others are written in place by their ops), and how many updates there are.
  int copied_updates() const { return copied_updates_; }
  int updates() const { return updates_; }
  bool disabled() const { return disabled_; }
  // Why recording was given up, in words ("a wait for the device ... cannot be recorded in a
  // CUDA graph"); "" while it is not. Function::cuda_graph_status() and `tgc run` print it.
  const std::string& disabled_reason() const { return disabled_reason_; }

 private:
  struct Entry {
    std::vector<int64_t> key;
    std::unique_ptr<CapturedWork> work;
    // The output slots' tensors the recording writes; none for an update in its own variable.
    std::vector<Tensor> outputs;
    std::vector<long> idle_use;   // each output's buffer use count when only the entry holds it
    // Per output: an update computed in its variable's own buffer (in place). The variable
    // holds it, not the entry nor a caller; it is the variable's memory, not the recording's.
    std::vector<char> in_variable;
    // Every other tensor the recording wrote (intermediates, a thunk's kept values): held so
    // that no buffer the recording uses goes back to the allocator while it may be replayed.
    std::vector<Tensor> held;
  };
  bool make_key(const std::vector<Tensor>& slots, const ReplayUpdates& updates);
  bool record(std::vector<Tensor>& slots, const ExecOptions& options, const ReplayUpdates& updates);
  void clear_unbound(std::vector<Tensor>& slots) const;
  void give_up(std::string reason);
  // Whether output slot `slot` holds an update computed in its variable's own buffer.
  static bool in_own_variable(const std::vector<Tensor>& slots, int slot, const ReplayUpdates& updates);
  static size_t held_bytes(const Entry& e);

  const Program& program_;
  Device& device_;
  // Bound values, then update targets: addresses, then layout_key_ (dtypes, shapes, strides).
  std::vector<int64_t> key_;
  std::vector<int64_t> layout_key_, last_layout_key_;
  std::vector<Entry> entries_;
  int recordings_ = 0, replays_ = 0;
  int copied_updates_ = 0, updates_ = 0;
  int recordings_since_replay_ = 0;
  bool disabled_ = false;
  std::string disabled_reason_;
  size_t max_recorded_bytes_;
};

}  // namespace tgc
