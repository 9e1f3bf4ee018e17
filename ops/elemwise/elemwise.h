// Elemwise: an n-ary elementwise op over broadcast operands, one row of the scalar-op table
// applied to every element ("Elemwise{exp}", "Elemwise{add}", "Elemwise{Cast{float32}}").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ops/core/op.h"
#include "ops/elemwise/scalar_op.h"

namespace tgc {

class Elemwise : public Op {
 public:
  // `cast_to` is the target of ScalarOpKind::Cast (and only of it). `floatx` is the float
  // type integer operands compute in for FloatResult ops (exp(int32) -> floatx); it is
  // part of the op's identity, and defaults to the global config's floatX. `inplace` is the
  // input whose buffer the output is written into (the inplace pass sets it), or -1.
  explicit Elemwise(ScalarOpKind kind, std::optional<DType> cast_to = std::nullopt,
                    std::optional<DType> floatx = std::nullopt, int inplace = -1);

  ScalarOpKind kind() const { return kind_; }
  const ScalarOpInfo& scalar_op() const { return scalar_op_info(kind_); }
  std::optional<DType> cast_to() const { return cast_to_; }
  DType floatx() const { return floatx_; }
  // The operand/compute/output dtypes for input dtypes (TypeError when not accepted).
  ScalarSignature signature(std::span<const DType> inputs) const;

  // "Elemwise{exp}"; "Elemwise{Cast{float32}}"; a FloatResult op whose floatx is not
  // float32 says so: "Elemwise{exp,floatX=float64}"; an inplace op says which input it
  // overwrites: "Elemwise{add,inplace}" (input 0), "Elemwise{add,inplace=1}".
  std::string name() const override;
  std::string op_class() const override { return "Elemwise"; }
  std::string user_name() const override;

  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  // Converts each element to the operand dtype, evaluates the row's reference function
  // (double or int64 domain) and stores into a contiguous output from ensure_output().
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // The row's derivative rule on the operands converted to their float operand dtype, each
  // input's term summed back to the input's shape and dtype (gradient::sum_to_like). Null
  // for integer and bool inputs and when the output's gradient is null; zeros (of the
  // input) for float inputs of piecewise-constant rows (comparisons, floor, ...: see
  // ScalarOpInfo::grad).
  std::vector<VarPtr> grad(const Node& node,
                           const std::vector<VarPtr>& output_grads) const override;

  // Any input may be overwritten: element i of the output reads only element i of each
  // input, and perform() loads a block of every input before it stores that block.
  std::shared_ptr<const Op> make_inplace(int output, int input) const override;
  int inplace_input(int output) const override { return output == 0 ? inplace_ : -1; }

 private:
  ScalarOpKind kind_;
  std::optional<DType> cast_to_;
  DType floatx_;
  int inplace_;
};

}  // namespace tgc
