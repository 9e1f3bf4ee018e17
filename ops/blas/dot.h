// Dot: NumPy's dot for vectors and matrices (vector.vector -> 0-d, matrix.vector,
// vector.matrix, matrix.matrix), mixed dtypes promoted; floats through OpenBLAS or oneDNN
// (ops/blas/product_library.h chooses).
#pragma once

#include <string>
#include <vector>

#include "ops/core/op.h"

namespace tgc {

class Dot : public Op {
 public:
  // `user_name` is the function the user called ("dot", or "matmul" for <= 2-d operands);
  // it only words error messages, so it is not part of the op's identity.
  explicit Dot(std::string user_name = "dot") : user_name_(std::move(user_name)) {}

  std::string name() const override { return "Dot"; }
  std::string op_class() const override { return "Dot"; }
  std::string user_name() const override { return user_name_; }
  // 0-d operands and ranks above 2 are TypeErrors (with hints to * and batched_dot/matmul);
  // known inner dims that differ are a ShapeError:
  // "dot: shapes (400, 784) and (785,) are not aligned (dim 1 != dim 0)".
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // The four forms' rules: vector.vector g*b, g*a; matrix.vector outer(g, b), dot(a.T, g);
  // vector.matrix dot(b, g), outer(a, g); matrix.matrix dot(g, b.T), dot(a.T, g). Each cast
  // to its input's dtype; integer inputs: null.
  std::vector<std::shared_ptr<Variable>> grad(const Node& node,
                                              const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 private:
  std::string user_name_;
};

}  // namespace tgc
