// The calling convention between rendered kernels and the launcher (no LLVM types, so the
// launcher and tests need no LLVM headers).
#pragma once

#include <cstddef>
#include <cstdint>

#include "compiler/kernel/kernel_ir.h"

namespace tgc::cpu {

// A rendered kernel is
//   int32_t kernel(const int64_t* shape, const int64_t* strides, void* const* pointers)
// Operands are the kernel's inputs then its outputs. `shape` holds outer_rank loop dims
// (elementwise: the whole loop space; reduction: the kept dims, possibly none) followed by
// reduce_rank reduced dims; `strides` holds, operand after operand, one element stride per
// shape dim (0 where an operand is broadcast; output-space operands have 0 on reduced dims).
// The result is a mask of KernelErrorBit (scalar_codegen.h); 0 when all went well.
//
// A reduction kernel reads one more pointer after its operands: null, or a ReductionSplit
// by which the launcher splits a reduction to one output point into chunks of its reduced
// range (run on any threads) and combines their results in chunk order.
//
// A kernel renders at most kMaxRenderedDims loop dims per group (elementwise: the loop space;
// reductions: the kept dims, and the reduced dims), whatever the kernel's rank: LLVM's time
// grows steeply with the depth of a loop nest (an elementwise kernel of rank 24 took 8 s), and
// the launcher collapses dims before a call, so realistic calls need few. Leading dims a call
// still has beyond them are looped by the launcher (elementwise and kept dims: one call per
// index of those dims), or, for reduced dims, the interpreter runs the call.
inline constexpr int kMaxRenderedDims = 4;

struct KernelLayout {
  int outer_rank = 1;
  int reduce_rank = 0;  // 0 for elementwise kernels
  int rank() const { return outer_rank + reduce_rank; }
};
KernelLayout kernel_layout(const Kernel& kernel);

struct ReductionSplit {
  // 1: compute the call's (reduced sub-range's) accumulators and store them into `partials`
  //    unfinished, instead of the outputs;
  // 2: fold `chunks` stored accumulator sets in order (the reference's fold for max/min),
  //    then finish and store the outputs as usual.
  int64_t mode;
  int64_t chunks;
  // 8 bytes per accumulator (the kernel's Reduce values in order), one set per chunk.
  void* partials;
};

// Rendered code reads the fields as {i64, i64, ptr} (kernel_codegen.cpp's read_split).
static_assert(sizeof(ReductionSplit) == 24 && offsetof(ReductionSplit, partials) == 16);

using KernelFn = int32_t (*)(const int64_t* shape, const int64_t* strides, void* const* pointers);

}  // namespace tgc::cpu
