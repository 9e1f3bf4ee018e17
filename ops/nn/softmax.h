// Softmax and LogSoftmax along one axis, computed stably (the row max is subtracted first)
// with SciPy's semantics for infinities and NaN (the formulas of scipy.special.softmax /
// log_softmax since SciPy 1.5):
//  - softmax: e = exp(x - max), then e / sum(e). A row of all -inf is NaN (-inf - -inf);
//    a row holding +inf is all NaN (inf - inf enters the sum); a NaN makes its row NaN.
//  - log_softmax: tmp = x - m with m the row max, or 0 when that max is not finite;
//    tmp - log(sum(exp(tmp))). All -inf gives NaN; [1, +inf] gives [-inf, NaN].
// Integer and bool inputs are promoted to floatX (the design's policy for float-valued
// math on integers, as for exp); the op stores floatX from construction time. Float
// inputs keep their dtype; float32 is computed in double and rounded once.
#pragma once

#include <string>
#include <vector>

#include "ops/core/op.h"

namespace tgc {

class Softmax : public Op {
 public:
  // `axis` non-negative (normalize_reduce_axis first); `log` selects LogSoftmax.
  Softmax(int axis, bool log, DType floatx);

  int axis() const { return axis_; }
  bool log() const { return log_; }
  DType floatx() const { return floatx_; }

  // "Softmax{axis=1}", "LogSoftmax{axis=0}"; floatX shown only when not float32.
  std::string name() const override;
  std::string op_class() const override { return log_ ? "LogSoftmax" : "Softmax"; }
  std::string user_name() const override { return log_ ? "log_softmax" : "softmax"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // softmax: s * (g - sum(g * s, axis)); log_softmax: g - exp(y) * sum(g, axis) (sums kept
  // as size-1 axes); integer inputs: null.
  std::vector<std::shared_ptr<Variable>> grad(const Node& node,
                                              const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 private:
  int axis_;
  bool log_;
  DType floatx_;
};

}  // namespace tgc
