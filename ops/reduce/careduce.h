// CAReduce: the commutative-associative reductions sum, prod, max, min, all and any over
// any set of axes, with keepdims (Theano's CAReduce family: "Sum{axis=[0]}", "Max").
#pragma once

#include <string>
#include <vector>

#include "ops/core/op.h"
#include "ops/reduce/reduce_axes.h"

namespace tgc {

enum class ReduceKind { Sum, Prod, Max, Min, All, Any };

std::string reduce_kind_name(ReduceKind kind);  // "Sum", "Max", ...

// The result dtype (NumPy's, adapted to tgc's dtypes): sum/prod of bool and of every
// integer type give int64 (NumPy gives uint64 for uint8, which tgc does not have), floats
// keep their type; max/min keep the input dtype; all/any give bool.
DType careduce_output_dtype(ReduceKind kind, DType in);

class CAReduce : public Op {
 public:
  // `axes` must be canonical (see normalize_reduce_axes); nullopt reduces every axis.
  // `identity_when_empty` (max and min only): a fold of nothing gives the fold's identity,
  // -inf / +inf for floats (the integer type's lowest / highest), as NumPy's
  // max(x, initial=-inf) does, instead of raising; "Max{axis=[1], empty=identity}". The
  // compiler's softmax decomposition shifts by such a max (compiler/passes/decompose_for_fusion.h).
  CAReduce(ReduceKind kind, ReduceAxes axes, bool keepdims, bool identity_when_empty = false);

  ReduceKind kind() const { return kind_; }
  const ReduceAxes& axes() const { return axes_; }
  bool keepdims() const { return keepdims_; }
  bool identity_when_empty() const { return identity_when_empty_; }

  std::string name() const override;
  std::string op_class() const override { return "CAReduce"; }
  // The frontend function: sum, prod, max, min, all, any.
  std::string user_name() const override;
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // sum: g broadcast back; prod: g times the product of the other elements (exact with any
  // number of zeros); max/min: g to every element equal to the result (ties all get it);
  // all/any and integer inputs: null.
  std::vector<std::shared_ptr<Variable>> grad(const Node& node,
                                              const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 private:
  void check_not_empty(int64_t reduced_count) const;
  ReduceKind kind_;
  ReduceAxes axes_;
  bool keepdims_;
  bool identity_when_empty_;
};

}  // namespace tgc
