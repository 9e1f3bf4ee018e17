// Kernel IR: the one description of a fused group that every backend renders — an index
// space, the tensors read over it, a DAG of scalar operations drawn from the scalar-op
// table, the outputs, and optionally one reduction (axes, combiner, epilogue). Immutable
// once built; printable (str()), comparable and hashable (the kernel cache's key).
//
// Meaning. A kernel is defined value by value with NumPy semantics, exactly as the
// unfused graph it came from: each value is a tensor whose shape is the broadcast of its
// arguments' shapes, a Reduce value folds its argument over `reduce_axes`. That is what the
// interpreter's general path computes, for any shapes. The fast path — the loop that a
// backend renders — visits one index space once: the "loop space" (the broadcast of every
// prologue load) and, in a reduction kernel, the "output space" (the loop space with the
// reduced axes folded). It is valid when every value's shape is its space's full shape;
// kernel_fast_path_applies() checks that at run time (with static shapes it almost always
// holds, since fusion groups nodes of the same rank).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ops/elemwise/scalar_op.h"
#include "runtime/dtype.h"

namespace tgc {

// What a reduction folds with. Mean is Sum followed by a division by the number of folded
// elements, carried out in the accumulator's precision before rounding once.
enum class KernelReduceOp : uint8_t { Sum, Prod, Max, Min, All, Any, Mean };
std::string_view kernel_reduce_op_name(KernelReduceOp op);  // "sum", "prod", ..., "mean"

struct KernelValue {
  enum class Kind : uint8_t {
    Load,      // input `input`, read at the current element (broadcast as its shape says)
    Constant,  // a 0-d constant folded into the kernel: `constant` (float) / `int_constant`
    Op,        // scalar_op applied to `args`
    Reduce,    // `reduce_op` over the kernel's reduced axes of args[0]
  };
  Kind kind = Kind::Load;
  DType dtype = DType::Float32;  // the value's element type
  int input = -1;                // Load
  double constant = 0;           // Constant: the value (exact for every float and small int)
  int64_t int_constant = 0;      // Constant: the value, exact for integer and bool dtypes
  ScalarOpKind op = ScalarOpKind::Add;  // Op
  KernelReduceOp reduce_op = KernelReduceOp::Sum;  // Reduce
  // Op: operands, already in the operand dtypes of the row's signature (lowering inserts
  // Cast values): an Op computes scalar_signature(op, arg dtypes) and yields `dtype`.
  // Reduce: one argument, in the accumulated dtype. Indices of earlier values.
  std::vector<int> args;
  // Reduce max/min: a fold of nothing gives the fold's identity (-inf / +inf for floats)
  // instead of raising (CAReduce's identity_when_empty; the backends' folds start there).
  bool identity_when_empty = false;

  bool operator==(const KernelValue&) const = default;
};

struct KernelInput {
  DType dtype = DType::Float32;
  int ndim = 0;  // the rank of the tensor passed in
  // Static dims (kUnknownDim where unknown) of the tensor passed in, for specialisation
  // (a dim known to be 1 is broadcast; known sizes may allow 32-bit indexing).
  std::vector<int64_t> static_shape;
  // Whether this input is read in the output space (the epilogue of a reduction kernel)
  // rather than the loop space. Tensors are aligned to their space on the right, as NumPy
  // broadcasting aligns them.
  bool in_output_space = false;

  bool operator==(const KernelInput&) const = default;
};

struct KernelOutput {
  int value = -1;  // which value is written
  DType dtype = DType::Float32;
  bool operator==(const KernelOutput&) const = default;
};

struct Kernel {
  int ndim = 0;  // rank of the loop space
  std::vector<KernelInput> inputs;
  std::vector<KernelValue> values;  // topologically ordered: args refer to earlier values
  std::vector<KernelOutput> outputs;
  // Reduction kernels only: the reduced axes of the loop space (sorted, unique), and whether
  // outputs keep them as size-1 dims. Every Reduce value of a kernel folds the same axes;
  // values computed from Reduce values (and loads marked in_output_space) form the epilogue
  // and live in the output space. Outputs of a reduction kernel are all epilogue values.
  std::vector<int> reduce_axes;
  bool keepdims = false;

  bool is_reduction() const;
  // Whether value i is computed after the reduction (in the output space).
  std::vector<bool> epilogue_mask() const;
  // Rank of the output space: ndim, minus the reduced axes unless keepdims.
  int output_ndim() const;

  // Checks the structural invariants above (arity from the scalar-op table, operand dtypes
  // from scalar_signature, arguments before uses, outputs in range, reduction rules).
  // Throws InternalError describing the first violation; lowering calls it on every kernel.
  void validate() const;

  // A readable listing that also is the printing of "Composite{...}" nodes, e.g.
  //   kernel(i0: float32[?,?], i1: float32[?,?]) loop rank 2
  //     v0 = load i0; v1 = load i1; v2 = add(v0, v1); v3 = sub(v0, v1)
  //     out0 = v2; out1 = v3
  std::string str() const;
  // "add(i0,i1), sub(i0,i1)": the outputs as inlined expressions, for Composite{...}.
  // With `input_names`, loads print as those names instead of i0, i1, ... and arguments
  // are separated by `arg_sep` (Node::describe of a Composite: "add(a, b)").
  std::string expression_str(const std::vector<std::string>* input_names = nullptr,
                             const char* arg_sep = ",") const;
  // A stable hash of the whole structure (not of run-time shapes): part of the kernel
  // cache key, with backend, flags and specialisation.
  uint64_t hash() const;
  bool operator==(const Kernel&) const = default;
};

}  // namespace tgc
