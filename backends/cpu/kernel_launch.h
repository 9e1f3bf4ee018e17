// Calling a compiled kernel on host tensors: output allocation, the loop space's collapsed
// shape and per-operand strides, splitting the outer dim across threads, error reporting.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "backends/cpu/kernel_abi.h"
#include "runtime/tensor.h"

namespace tgc::cpu {

// The most threads one kernel call uses: OpenMP's count, 1 without OpenMP. A call on a busy
// machine may get fewer (team_threads, runtime/cpu_team.h).
int launch_threads();

// Runs a compiled kernel: its thunk's state. It keeps the launch plan of the last input
// shapes and strides (output shapes, the collapsed loop space, per-operand strides), so a
// repeated call only allocates its outputs and fills in the pointers. Thread-safe: a call
// that finds another one launching plans for itself.
class KernelLauncher {
 public:
  // `kernel` must outlive the launcher; `inplace` as run_kernel's (Composite::inplace_map).
  KernelLauncher(const Kernel& kernel, KernelFn fn, std::vector<int> inplace = {});
  ~KernelLauncher();
  KernelLauncher(const KernelLauncher&) = delete;
  KernelLauncher& operator=(const KernelLauncher&) = delete;

  // launch_kernel's contract.
  void operator()(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs);

 private:
  struct Plan;
  static void key_of(const std::vector<Tensor>& inputs, std::vector<int64_t>& key);
  std::unique_ptr<Plan> make_plan(const std::vector<Tensor>& inputs) const;

  const Kernel& kernel_;
  KernelFn fn_;
  std::vector<int> inplace_;
  std::vector<int> every_input_;  // ensure_output_inplace's aliasable inputs: all of them
  std::mutex mutex_;              // the plan and the key buffers
  std::unique_ptr<Plan> plan_;
  std::vector<int64_t> plan_key_, scratch_key_;
};

// Runs `kernel` through `fn` (Op::perform's contract for `outputs`). When the shapes leave
// the kernel's fast path (kernel_fast_path_applies), or the kernel reports an error (integer
// division by zero, ...), the interpreter runs instead: it computes the general case and
// raises the reference's exact error. `inplace` as run_kernel's (Composite::inplace_map).
void launch_kernel(const Kernel& kernel, KernelFn fn, const std::vector<Tensor>& inputs,
                   std::vector<Tensor>& outputs, const std::vector<int>& inplace = {});

}  // namespace tgc::cpu
