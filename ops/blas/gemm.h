// Gemm and Gemv: BLAS's fused multiply-add of a matrix product, Z = alpha * op(A) @ op(B) +
// beta * C, where op transposes an operand by a flag (no copy). The specialize pass makes them
// from dot(...) * alpha + C * beta; users never build them directly.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ops/core/op.h"

namespace tgc {

// What Gemm (matrix @ matrix) and Gemv (matrix @ vector) share. Inputs, in order:
// A, B (the product's operands), C (the addend), alpha, beta (0-d scale factors of any
// numeric dtype, read as double). A, B and C share one dtype, float32 or float64: the
// rewrite only forms these ops for floats, which BLAS serves. C may broadcast to the
// product's shape (a bias row); when C broadcasts the product instead (a product dim of 1
// at run time against a larger C dim), the result is still NumPy's alpha*dot + beta*C,
// computed by a slower path. Following BLAS, C is not read when beta == 0 (NaN or inf in C
// do not propagate).
class ScaledMatmul : public Op {
 public:
  enum Input { kA = 0, kB = 1, kC = 2, kAlpha = 3, kBeta = 4 };

  bool trans_a() const { return trans_a_; }
  bool trans_b() const { return trans_b_; }
  bool inplace() const { return inplace_; }

  // "Gemm", "Gemm{transA}", "Gemv{transA,inplace}".
  std::string name() const override;
  std::string op_class() const override { return base_name_; }
  std::string user_name() const override { return user_name_; }

  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;

  // The inplace variant writes the result into C's buffer (Theano's gemm_inplace).
  std::shared_ptr<const Op> make_inplace(int output, int input) const override;
  int inplace_input(int output) const override { return output == 0 && inplace_ ? kC : -1; }

  // The op with the same configuration but other flags (rewrites toggle transposes).
  virtual std::shared_ptr<const ScaledMatmul> with(bool trans_a, bool trans_b, bool inplace) const = 0;

 protected:
  ScaledMatmul(std::string base_name, std::string user_name, int b_rank, bool trans_a, bool trans_b,
               bool inplace);

 private:
  std::string base_name_, user_name_;
  int b_rank_;  // 2 for Gemm, 1 for Gemv
  bool trans_a_, trans_b_, inplace_;
};

// Z = alpha * op(A) @ op(B) + beta * C for matrices A, B; C of rank <= 2.
class Gemm : public ScaledMatmul {
 public:
  explicit Gemm(bool trans_a = false, bool trans_b = false, bool inplace = false)
      : ScaledMatmul("Gemm", "gemm", 2, trans_a, trans_b, inplace) {}
  std::shared_ptr<const ScaledMatmul> with(bool trans_a, bool trans_b, bool inplace) const override {
    return std::make_shared<Gemm>(trans_a, trans_b, inplace);
  }
};

// z = alpha * op(A) @ x + beta * y for a matrix A and a vector x; y of rank <= 1 (B is x,
// C is y: the input order is Gemm's). A vector on the left, dot(x, B), is Gemv of B with
// transA toggled.
class Gemv : public ScaledMatmul {
 public:
  explicit Gemv(bool trans_a = false, bool inplace = false)
      : ScaledMatmul("Gemv", "gemv", 1, trans_a, false, inplace) {}
  std::shared_ptr<const ScaledMatmul> with(bool trans_a, bool /*trans_b*/, bool inplace) const override {
    return std::make_shared<Gemv>(trans_a, inplace);
  }
};

}  // namespace tgc
