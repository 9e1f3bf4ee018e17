// Outer: NumPy's outer product, out[i, j] = x[i] * y[j] of the flattened operands, for
// every dtype (promoted like multiplication; bool gives AND). Its own op rather than a dot
// of reshaped operands: there is no inner dimension to contract, so BLAS buys nothing.
#pragma once

#include <string>
#include <vector>

#include "ops/core/op.h"

namespace tgc {

class Outer : public Op {
 public:
  std::string name() const override { return "Outer"; }
  std::string op_class() const override { return "Outer"; }
  std::string user_name() const override { return "outer"; }
  // Operands of any rank are flattened (as NumPy does); the output is (x.size, y.size).
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // dot(g, y) and dot(x, g) on the flattened operands, reshaped back to each operand's
  // runtime shape; integer inputs: null.
  std::vector<std::shared_ptr<Variable>> grad(const Node& node,
                                              const std::vector<std::shared_ptr<Variable>>& output_grads) const override;
};

}  // namespace tgc
