// reference_op: a kernel value's unfused op, built from the value's fields.
#include "compiler/kernel/reference_op.h"

#include "ops/elemwise/elemwise.h"
#include "ops/reduce/careduce.h"
#include "ops/reduce/mean.h"
#include "runtime/error.h"

namespace tgc {

namespace {

ReduceKind reduce_kind(KernelReduceOp op) {
  switch (op) {
    case KernelReduceOp::Sum: return ReduceKind::Sum;
    case KernelReduceOp::Prod: return ReduceKind::Prod;
    case KernelReduceOp::Max: return ReduceKind::Max;
    case KernelReduceOp::Min: return ReduceKind::Min;
    case KernelReduceOp::All: return ReduceKind::All;
    case KernelReduceOp::Any: return ReduceKind::Any;
    case KernelReduceOp::Mean: break;
  }
  TGC_INTERNAL_CHECK(false, "mean is not a CAReduce kind");
  return ReduceKind::Sum;
}

}  // namespace

std::shared_ptr<const Op> reference_op(const Kernel& kernel, int value) {
  const KernelValue& v = kernel.values.at(value);
  switch (v.kind) {
    case KernelValue::Kind::Load:
    case KernelValue::Kind::Constant: return nullptr;
    case KernelValue::Kind::Op: {
      // The operands are already in the row's operand dtypes, so floatX changes nothing;
      // the value's own float type keeps the op's name plain.
      const DType floatx = is_float(v.dtype) ? v.dtype : DType::Float32;
      const std::optional<DType> cast_to = v.op == ScalarOpKind::Cast ? std::optional(v.dtype) : std::nullopt;
      return std::make_shared<Elemwise>(v.op, cast_to, floatx);
    }
    case KernelValue::Kind::Reduce: {
      const ReduceAxes axes = normalize_reduce_axes(kernel.reduce_axes, kernel.ndim, "kernel");
      if (v.reduce_op == KernelReduceOp::Mean) return std::make_shared<Mean>(axes, kernel.keepdims, v.dtype);
      return std::make_shared<CAReduce>(reduce_kind(v.reduce_op), axes, kernel.keepdims, v.identity_when_empty);
    }
  }
  return nullptr;
}

}  // namespace tgc
