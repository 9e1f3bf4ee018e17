// LogSumExp: log(sum(exp(x))) over any set of axes, with keepdims, computed stably with
// SciPy's formula (scipy.special.logsumexp): m = max, replaced by 0 when not finite;
// log(sum(exp(x - m))) + m. So all -inf gives -inf, a +inf gives +inf, a NaN gives NaN,
// and 1000 or -1000 do not overflow. An empty reduction gives -inf (log 0, the identity
// of logaddexp) where SciPy raises. Integer and bool inputs are promoted to floatX (stored
// at construction), floats keep their dtype; float32 is computed in double.
#pragma once

#include <string>
#include <vector>

#include "ops/reduce/float_reduce.h"

namespace tgc {

class LogSumExp : public FloatReduce {
 public:
  // `axes` canonical (see normalize_reduce_axes); nullopt reduces every axis.
  LogSumExp(ReduceAxes axes, bool keepdims, DType floatx)
      : FloatReduce("LogSumExp", std::move(axes), keepdims, floatx) {}

  std::string op_class() const override { return "LogSumExp"; }
  std::string user_name() const override { return "logsumexp"; }
  // g times softmax(x) over the reduced axes: g * exp(x - logsumexp(x)); integer inputs: null.
  std::vector<std::shared_ptr<Variable>> grad(const Node& node,
                                              const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 private:
  std::vector<double> reduce(const Tensor& x, const ReducePlan& plan) const override;
};

}  // namespace tgc
