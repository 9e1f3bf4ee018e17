// SoftmaxCrossEntropy: a softmax cross-entropy's rows and its gradient as one op, so that a GPU
// runs the pattern as one row kernel (issue 19: "the softmax-cross-entropy pattern and its
// gradient each become one kernel"). The softmax_cross_entropy pass (compiler/passes/
// softmax_cross_entropy.h) makes it, only where the device backend runs it, from
//   y = log_softmax(z, axis)
//   r = sum(t * y, axis)                 the rows' cross-entropies (negated, unscaled)
//   d = log_softmax_grad(g, y)           = g - exp(y) * sum(g, axis, keepdims)
// when y has no other reader. Users never build it.
//
// Inputs: (z, t, g), or with a `scale` (z, t) for g = t * scale, a constant (the gradient of
// -mean(sum(t * log_softmax(z), axis)) is t times -1/N: the elementwise product is folded in
// rather than made a kernel of its own, and the constant travels as a kernel parameter, not as
// a transfer). z, t (and g) have one float dtype and z's shape; the scale is a value of that
// dtype. Outputs: (r, d): r has z's shape without `axis`, d z's shape.
//
// The reference evaluation is the composition's, element for element: y rounded to the dtype
// as log_softmax's result is, each product t * y in the dtype, the row sums in double rounded
// once; g = t * scale in the dtype.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ops/core/op.h"

namespace tgc {

class SoftmaxCrossEntropy : public Op {
 public:
  enum Input { kZ = 0, kT = 1, kG = 2 };  // no kG with a scale
  SoftmaxCrossEntropy(int axis, std::optional<double> scale);

  int axis() const { return axis_; }
  const std::optional<double>& scale() const { return scale_; }

  std::string name() const override;  // "SoftmaxCrossEntropy{axis=1, scale=-0.25}"
  std::string op_class() const override { return "SoftmaxCrossEntropy"; }
  std::string user_name() const override { return "softmax_cross_entropy"; }
  int num_outputs() const override { return 2; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;

 private:
  int axis_;
  std::optional<double> scale_;
};

}  // namespace tgc
