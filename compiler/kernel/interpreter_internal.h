// Inside the Kernel IR interpreter: the value-by-value shape analysis that decides between
// the single-pass loop and the value-by-value evaluation, and the two evaluations.
#pragma once

#include <vector>

#include "compiler/kernel/kernel_ir.h"
#include "runtime/shape.h"
#include "runtime/tensor.h"

namespace tgc {

struct KernelShapes {
  std::vector<Shape> values;  // each value's NumPy shape (Constants: ())
  // Filled when `fast`: the loop space (rank kernel.ndim) and, in a reduction kernel, the
  // output space.
  Shape loop;
  Shape output_space;
  bool fast = false;
};

// Computes every value's shape as the unfused ops would (ShapeError/ValueError worded as
// theirs) and whether one pass over the loop space computes them all (see interpreter.h).
KernelShapes analyze_kernel_shapes(const Kernel& kernel, const std::vector<Shape>& input_shapes);

// Values computed from Constant values only: evaluated once and read everywhere.
std::vector<bool> uniform_mask(const Kernel& kernel);

// The single-pass loop; `shapes.fast` must hold.
// `inplace` as run_kernel's: outputs allowed to keep an input's buffer handed over.
void run_kernel_fast(const Kernel& kernel, const KernelShapes& shapes, const std::vector<Tensor>& inputs,
                     std::vector<Tensor>& outputs, const std::vector<int>& inplace = {});
// Value by value through the unfused ops' perform: correct for any shapes.
void run_kernel_general(const Kernel& kernel, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs);

}  // namespace tgc
