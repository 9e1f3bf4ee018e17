// Small Kernel IR builders for the C-family renderer's tests.
#pragma once

#include "compiler/kernel/kernel_ir.h"

namespace tgc::test {

inline KernelValue load_value(int input, DType t) {
  KernelValue v;
  v.kind = KernelValue::Kind::Load;
  v.input = input;
  v.dtype = t;
  return v;
}

inline KernelValue op_value(ScalarOpKind op, DType t, std::vector<int> args) {
  KernelValue v;
  v.kind = KernelValue::Kind::Op;
  v.op = op;
  v.dtype = t;
  v.args = std::move(args);
  return v;
}

inline KernelValue reduce_value(KernelReduceOp op, DType t, int arg) {
  KernelValue v;
  v.kind = KernelValue::Kind::Reduce;
  v.reduce_op = op;
  v.dtype = t;
  v.args = {arg};
  return v;
}

// out = op(i0, i1) over rank-`ndim` inputs of unknown dims.
inline Kernel binary_kernel(ScalarOpKind op, DType t, int ndim, DType out = DType::Float32) {
  Kernel k;
  k.ndim = ndim;
  k.inputs = {{t, ndim, std::vector<int64_t>(ndim, -1), false}, {t, ndim, std::vector<int64_t>(ndim, -1), false}};
  k.values = {load_value(0, t), load_value(1, t), op_value(op, out, {0, 1})};
  k.outputs = {{2, out}};
  return k;
}

// out = op(i0) over a rank-1 input of unknown size.
inline Kernel unary_kernel(ScalarOpKind op, DType t) {
  Kernel k;
  k.ndim = 1;
  k.inputs = {{t, 1, std::vector<int64_t>{-1}, false}};
  k.values = {load_value(0, t), op_value(op, t, {0})};
  k.outputs = {{1, t}};
  return k;
}

// out = reduce(exp(i0)) (abs for integers) over `axes` of a rank-`ndim` input.
inline Kernel reduce_kernel(KernelReduceOp op, int ndim, std::vector<int> axes, DType t = DType::Float32) {
  Kernel k;
  k.ndim = ndim;
  k.inputs = {{t, ndim, std::vector<int64_t>(ndim, -1), false}};
  k.values = {load_value(0, t), op_value(is_float(t) ? ScalarOpKind::Exp : ScalarOpKind::Abs, t, {0}),
              reduce_value(op, t, 1)};
  k.outputs = {{2, t}};
  k.reduce_axes = std::move(axes);
  return k;
}

}  // namespace tgc::test
