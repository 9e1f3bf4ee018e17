// FloatReduce: the frame shared by reductions whose result is always a float (Mean,
// LogSumExp): canonical axes, keepdims, and the floatX that integer and bool inputs are
// promoted to (floats keep their dtype). A subclass computes one double per output element;
// the frame does the name, type and shape rules and writes the results out.
#pragma once

#include <string>
#include <vector>

#include "ops/core/op.h"
#include "ops/reduce/reduce_axes.h"

namespace tgc {

class FloatReduce : public Op {
 public:
  const ReduceAxes& axes() const { return axes_; }
  bool keepdims() const { return keepdims_; }
  DType floatx() const { return floatx_; }

  // "<Class>{axis=[0], keepdims=True}"; floatX is shown only when it is not the default
  // float32, and the braces only when some parameter is shown ("Mean").
  std::string name() const override;
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const final;

 protected:
  // `class_name` names the op ("Mean"); `axes` canonical (see normalize_reduce_axes);
  // `floatx` is the config's floatX when the graph was built.
  FloatReduce(std::string class_name, ReduceAxes axes, bool keepdims, DType floatx);

  // The result of each output element of `plan` (C order), in double, for the input `x`.
  virtual std::vector<double> reduce(const Tensor& x, const ReducePlan& plan) const = 0;

 private:
  std::string class_name_;
  ReduceAxes axes_;
  bool keepdims_;
  DType floatx_;
};

}  // namespace tgc
