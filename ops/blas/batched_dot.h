// BatchedDot: a stack of matrix products (NumPy matmul when an operand is 3-d): (B, m, k)
// x (B, k, n) -> (B, m, n), a batch of 1 broadcast against any batch, a 2-d operand used
// for every batch entry ((B, m, k) x (k, n), (m, k) x (B, k, n)), and a 1-d operand as a
// row/column vector whose dim is dropped ((B, m, k) x (k,) -> (B, m)). Floats go through
// gemm/gemv per entry.
#pragma once

#include <string>
#include <vector>

#include "ops/core/op.h"

namespace tgc {

class BatchedDot : public Op {
 public:
  // `user_name`: "batched_dot" or "matmul", for error messages only (not part of identity).
  explicit BatchedDot(std::string user_name = "batched_dot") : user_name_(std::move(user_name)) {}

  std::string name() const override { return "BatchedDot"; }
  std::string op_class() const override { return "BatchedDot"; }
  std::string user_name() const override { return user_name_; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // Both operands viewed as stacks (2-d: a batch of 1, 1-d: a row/column matrix), then
  // batched_dot(g, b^T) and batched_dot(a^T, g) summed over the batch entries an operand was
  // broadcast to; integer inputs: null.
  std::vector<std::shared_ptr<Variable>> grad(const Node& node,
                                              const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 private:
  std::string user_name_;
};

}  // namespace tgc
