// Where a kernel's loop space lies over its operands, computed once for everything that runs
// Kernel IR (the interpreter, the C-family launch planner of CUDA and OpenCL, the CPU
// backend's launcher): the output space, the loop-space strides of output-space operands,
// and the kept and reduced dims of a reduction, split and collapsed.
#pragma once

#include <vector>

#include "compiler/kernel/kernel_ir.h"
#include "runtime/shape.h"

namespace tgc {

// The loop space with the reduced axes dropped (kept as 1 with keepdims); the loop itself
// for an elementwise kernel.
Shape kernel_output_space(const Kernel& k, const Shape& loop);

// The strides in the loop space of an operand over the output space (`shape`/`strides`
// broadcast to `out_space`): its own on kept axes, 0 on reduced ones.
Strides output_space_strides(const Kernel& k, const Shape& shape, const Strides& strides, const Shape& out_space);

// A reduction's loop dims as two groups, kept (outer) and reduced, each collapsed where its
// operands' strides allow (collapse_dims); the strides per operand in the same order.
struct SplitDims {
  Shape kept, reduced;
  std::vector<Strides> kept_strides, reduced_strides;
};
SplitDims split_reduced_dims(const Kernel& k, const Shape& loop, const std::vector<Strides>& loop_strides);

}  // namespace tgc
