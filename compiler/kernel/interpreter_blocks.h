// The block machinery of the interpreter's single pass: element loops typed once per call
// (no per-element indirection), and a phase: one index space with its strided operands and
// the load, op, store and fold steps that every block of 512 elements goes through.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "compiler/kernel/kernel_ir.h"
#include "ops/elemwise/scalar_op.h"
#include "runtime/shape.h"

namespace tgc::kernel_loop {

inline constexpr int64_t kBlock = 512;
inline constexpr int kMaxArity = 3;

// Values live in blocks of their natural domain: double for float dtypes, int64 for
// integers and bool (8 bytes an element either way).

// n elements of a tensor of dtype `in` at `stride` into a natural-domain block (exact).
using LoadFn = void (*)(const char* base, int64_t stride, int64_t n, void* out);
LoadFn select_load(DType in);
// n natural-domain values, already of dtype `out`, into a tensor at `stride`.
using StoreFn = void (*)(const void* in, char* base, int64_t stride, int64_t n);
StoreFn select_store(DType out);
// An op's results in its compute domain converted to dtype t exactly as Elemwise stores
// them (float32 rounding, integer wrap, saturation from floats, nonzero -> true), kept in
// t's natural domain; in == out allowed. Null where that is the identity.
using RoundFn = void (*)(const void* in, void* out, int64_t n);
RoundFn select_round(bool float_domain, DType t);
// Folds n values into accumulators `stride` slots apart (0: all into one, in order).
using FoldFn = void (*)(void* acc, int64_t stride, const void* v, int64_t n);
FoldFn select_fold(KernelReduceOp op, bool float_domain);

struct LoadStep {
  int operand;
  LoadFn fn;
  const char* base;
  int64_t elem_size;
  void* dst;
};
struct StoreStep {
  int operand;
  StoreFn fn;
  char* base;
  int64_t elem_size;
  const void* src;
};
struct FoldStep {
  int operand;  // its offsets count 8-byte accumulator slots
  FoldFn fn;
  void* acc;
  const void* src;
};
struct OpStep {
  const ScalarOpInfo* row;
  bool float_domain;
  std::array<const void*, kMaxArity> args;
  std::array<const int64_t*, kMaxArity> widen{};  // integer args read by a float op: -> args[k]
  void* result;     // compute-domain block
  RoundFn round;    // result -> value (null: the identity, result is the value's block)
  void* value;
};

// One Op over the first m elements of its blocks.
void run_op(const OpStep& s, int64_t m);

// One index space with its operands (one stride list each) and what a block does.
struct Phase {
  Shape shape;
  std::vector<Strides> strides;
  // Whether elements may be visited in any order (no folding): then a short innermost dim
  // is swapped with the longest one, so a transposed operand does not cut every block into
  // tiny segments. Folding phases visit C order: each accumulator then adds its elements
  // in the order CAReduce does.
  bool any_order = true;
  std::vector<LoadStep> loads;
  std::vector<OpStep> ops;
  std::vector<StoreStep> stores;
  std::vector<FoldStep> folds;

  // Adds an operand; returns its index.
  int operand(Strides s) {
    strides.push_back(std::move(s));
    return static_cast<int>(strides.size()) - 1;
  }
  // Collapses the space and runs every block through the steps.
  void run();

 private:
  void move_longest_dim_inside();
};

}  // namespace tgc::kernel_loop
