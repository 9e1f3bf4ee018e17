// Calling a compiled kernel on host tensors: output allocation, the loop space's collapsed
// shape and per-operand strides, splitting the outer dim across threads, error reporting.
#pragma once

#include <vector>

#include "backends/cpu/kernel_abi.h"
#include "runtime/tensor.h"

namespace tgc::cpu {

// Threads used for one kernel call (OpenMP's, 1 without OpenMP).
int launch_threads();

// Runs `kernel` through `fn` (Op::perform's contract for `outputs`). When the shapes leave
// the kernel's fast path (kernel_fast_path_applies), or the kernel reports an error (integer
// division by zero, ...), the interpreter runs instead: it computes the general case and
// raises the reference's exact error. `inplace` as run_kernel's (Composite::inplace_map).
void launch_kernel(const Kernel& kernel, KernelFn fn, const std::vector<Tensor>& inputs,
                   std::vector<Tensor>& outputs, const std::vector<int>& inplace = {});

}  // namespace tgc::cpu
