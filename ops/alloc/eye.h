// Eye{n, m, k, dtype}: an n x m matrix with ones on the k-th diagonal (NumPy's eye).
#pragma once

#include "ops/core/op.h"

namespace tgc {

class Eye : public Op {
 public:
  Eye(int64_t n, int64_t m, int64_t k, DType dtype) : n_(n), m_(m), k_(k), dtype_(dtype) {}

  std::string name() const override;  // "Eye{n=3, m=4, k=1, dtype=float32}"
  std::string op_class() const override { return "Eye"; }
  std::string user_name() const override { return "eye"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::vector<std::shared_ptr<Variable>> grad(
      const Node& node, const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

  int64_t n() const { return n_; }
  int64_t m() const { return m_; }
  int64_t k() const { return k_; }
  DType dtype() const { return dtype_; }

 private:
  Shape shape() const;  // (n, m); throws ValueError for negative sizes
  int64_t n_, m_, k_;
  DType dtype_;
};

}  // namespace tgc
