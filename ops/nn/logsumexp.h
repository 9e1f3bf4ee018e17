// LogSumExp: log(sum(exp(x))) over any set of axes, with keepdims, computed stably with
// SciPy's formula (scipy.special.logsumexp): m = max, replaced by 0 when not finite;
// log(sum(exp(x - m))) + m. So all -inf gives -inf, a +inf gives +inf, a NaN gives NaN,
// and 1000 or -1000 do not overflow. An empty reduction gives -inf (log 0, the identity
// of logaddexp) where SciPy raises. Integer and bool inputs are promoted to floatX (stored
// at construction), floats keep their dtype; float32 is computed in double.
#pragma once

#include <string>
#include <vector>

#include "ops/core/op.h"
#include "ops/reduce/reduce_axes.h"

namespace tgc {

class LogSumExp : public Op {
 public:
  // `axes` canonical (see normalize_reduce_axes); nullopt reduces every axis.
  LogSumExp(ReduceAxes axes, bool keepdims, DType floatx);

  const ReduceAxes& axes() const { return axes_; }
  bool keepdims() const { return keepdims_; }

  // "LogSumExp{axis=[1]}", "LogSumExp" for all axes; floatX shown when not float32.
  std::string name() const override;
  std::string op_class() const override { return "LogSumExp"; }
  std::string user_name() const override { return "logsumexp"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;

 private:
  ReduceAxes axes_;
  bool keepdims_;
  DType floatx_;
};

}  // namespace tgc
