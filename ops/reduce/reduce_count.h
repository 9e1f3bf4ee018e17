// ReduceCount: how many elements each output element of a reduction over `axes` folds, read
// from the input's runtime shape (the divisor in Mean's gradient). The input's elements are
// never read, so the op has no gradient to pass on.
#pragma once

#include <string>
#include <vector>

#include "ops/core/op.h"
#include "ops/reduce/reduce_axes.h"

namespace tgc {

class ReduceCount : public Op {
 public:
  // `axes` canonical (see normalize_reduce_axes); the 0-d result has dtype `dtype`.
  ReduceCount(ReduceAxes axes, DType dtype);

  const ReduceAxes& axes() const { return axes_; }
  DType dtype() const { return dtype_; }

  // "ReduceCount{axis=[0], dtype=float64}", "ReduceCount{dtype=float32}".
  std::string name() const override;
  std::string op_class() const override { return "ReduceCount"; }
  std::string user_name() const override { return "reduce_count"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // The count depends on the input's shape only: null.
  std::vector<std::shared_ptr<Variable>> grad(const Node& node,
                                              const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 private:
  ReduceAxes axes_;
  DType dtype_;
};

}  // namespace tgc
