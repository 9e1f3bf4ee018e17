// The host interpreter of Kernel IR: runs a kernel directly on host tensors, so fusion is
// tested end to end without a JIT and a build without LLVM still runs every graph. Its
// results are the Kernel IR's meaning (see kernel_ir.h) that every backend must reproduce.
#pragma once

#include <vector>

#include "compiler/kernel/kernel_ir.h"
#include "runtime/shape.h"
#include "runtime/tensor.h"

namespace tgc {

// The concrete shape of every output for these input shapes. ShapeError (worded like the
// unfused elementwise op's) when inputs do not broadcast; ValueError for an empty reduction
// by max/min (as CAReduce).
std::vector<Shape> kernel_output_shapes(const Kernel& kernel, const std::vector<Shape>& input_shapes);

// Whether one pass over the loop space computes every value at its own shape (see
// kernel_ir.h): true unless an unknown-at-compile-time dim broadcasts inside the group.
bool kernel_fast_path_applies(const Kernel& kernel, const std::vector<Shape>& input_shapes);

// Runs the kernel: the single-pass loop (dims collapsed, evaluated in blocks through the
// scalar-op table's array functions) when kernel_fast_path_applies, else value by value.
// `outputs` follows Op::perform's contract (entries may hold last call's tensors; they are
// reused through ensure_output). Float values are computed in double and rounded to their
// dtype after every operation, integers in int64 wrapped to their dtype, exactly as the
// unfused Elemwise/CAReduce/Mean reference ops do, so results match them bit for bit
// except for the summation order of reductions. `inplace` (empty, or one entry per output:
// the input it may overwrite, or -1; see Composite::make_inplace) lets the single pass keep
// a dying input's buffer handed over in an output slot (ensure_output_inplace).
void run_kernel(const Kernel& kernel, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
                const std::vector<int>& inplace = {});

}  // namespace tgc
