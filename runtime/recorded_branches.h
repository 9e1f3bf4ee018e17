// RecordedBranches: a lazy ifelse inside a recorded call. Node by node, the executor skips the
// thunks of the branch not taken (Thunk::guard), reading each condition on the host; a
// recording cannot read it, since the value exists only when a replay runs. On a device that
// records conditional work (Device::capture_conditionals: CUDA's conditional graph nodes), the
// recording instead holds every thunk, each guarded one inside conditional work that the
// device runs only when the guard holds, and each choice (Thunk::choice) as copies of the
// taken branch's values into fresh outputs. The call stays one launch, and the untaken
// branch's kernels do not run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/device.h"
#include "runtime/program.h"

namespace tgc {

class RecordedBranches {
 public:
  explicit RecordedBranches(Device& device) : device_(device) {}

  // Before thunk `i` is recorded (its inputs in `slots`): its work goes into the conditional
  // work of its guard, opened here (closing another) unless the one open is that guard's.
  // Consecutive thunks of one guard share it. A choice closes what is open: call choose().
  void before(const Program& program, size_t i, const std::vector<Tensor>& slots);
  // Records thunk `i`, a choice, in place of running it: each output a fresh tensor on the
  // device, filled from the then value when the condition holds, else from the else value
  // (Device::copy_chosen).
  // Throws (so the call runs node by node) when the two values differ in dtype or shape.
  void choose(const Program& program, size_t i, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs);
  // After the last thunk: closes what is open.
  void finish();

 private:
  // The device form of thunk i's guard: a test whose condition is computed after the thunk
  // holds (as the executor's), and a condition on the host (a constant) is read now.
  // nullopt: always (no guard, or a term that holds already).
  std::optional<Device::Condition> condition_of(const Program& program, size_t i,
                                                const std::vector<Tensor>& slots) const;
  Device::ConditionTest test_of(const Tensor& condition, bool when, const std::string& label) const;
  void close();

  Device& device_;
  bool open_ = false;
  Device::Condition open_condition_;
};

}  // namespace tgc
