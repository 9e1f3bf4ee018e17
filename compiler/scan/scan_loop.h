// The loop every Scan runs, written once: the reference perform() and the compiled thunk
// (compiler/scan/scan_thunk.h) differ only in how one step runs and how a tensor is copied
// on its device, so both go through run_scan().
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "compiler/scan/scan_op.h"
#include "runtime/tensor.h"
#include "runtime/type.h"

namespace tgc {

struct ScanLoopHooks {
  Device* device = nullptr;  // where the outputs are allocated (the host when null)
  // Runs one step: fills `inner_outputs` (one per inner output) from `inner_inputs`.
  std::function<void(const std::vector<Tensor>& inner_inputs, std::vector<Tensor>& inner_outputs)> step;
  // dst = src: the same dtype and shape, dst C-contiguous, src any strides; ordered after the
  // work already enqueued on the device.
  std::function<void(const Tensor& src, const Tensor& dst)> copy;
  // The value of a one-element tensor (the symbolic step count, an until condition); may wait
  // for the device. Unset: to_host().item().
  std::function<int64_t(const Tensor&)> read_int;
  // The static types of the per-step outputs (the shape of a loop that ran no step).
  std::vector<Type> per_step_types;
};

// How many steps the loop runs for these node inputs (before an until condition stops it),
// checked against every sequence: ValueError naming the sequence that is too short.
int64_t scan_steps(const ScanSpec& spec, const std::vector<Tensor>& inputs,
                   const std::function<int64_t(const Tensor&)>& read_int);

// Runs the loop: `outputs` receives the node's outputs (ScanSpec's layout). Errors of a step
// name the step ("in step 3 of scan rnn") on top of the inner node's own location.
void run_scan(const ScanSpec& spec, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
              const ScanLoopHooks& hooks);

// Row i of `t` along axis 0: a view.
Tensor scan_row(const Tensor& t, int64_t i);

}  // namespace tgc
