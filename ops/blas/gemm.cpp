// Gemm and Gemv: type and shape rules, and the evaluation through matmul_strided with
// BLAS's alpha and beta (C copied or broadcast into the output first, unless the output is
// C's own buffer).
#include "ops/blas/gemm.h"

#include <fmt/format.h>

#include "ops/blas/matmul_kernel.h"
#include "ops/elemwise/broadcast.h"
#include "ops/elemwise/elemwise.h"
#include "runtime/type.h"  // static_shape_str

namespace tgc {
namespace {

// The dims of op(A) @ op(B) (unknown dims stay unknown), after the rank and alignment checks.
std::vector<int64_t> product_dims(const std::string& what, std::vector<int64_t> a, std::vector<int64_t> b,
                                  int b_rank, bool trans_a, bool trans_b) {
  if (a.size() != 2 || static_cast<int>(b.size()) != b_rank)
    throw TypeError(fmt::format("{}: operands of shapes {} and {}; {} takes a matrix and a {}", what,
                                static_shape_str(a), static_shape_str(b), what, b_rank == 2 ? "matrix" : "vector"),
                    "", "gemm and gemv are formed by the optimizer from dot(); use dot() directly");
  if (trans_a) std::swap(a[0], a[1]);
  if (trans_b && b.size() == 2) std::swap(b[0], b[1]);
  if (a[1] != kUnknownDim && b[0] != kUnknownDim && a[1] != b[0])
    throw ShapeError(fmt::format("{}: shapes {} and {} are not aligned (dim 1 != dim 0)", what,
                                 static_shape_str(a), static_shape_str(b)),
                     "", "the first operand's last dim must equal the second's first dim");
  std::vector<int64_t> out{a[0]};
  if (b_rank == 2) out.push_back(b[1]);
  return out;
}

double scalar_of(const Tensor& t) { return t.at({}); }

}  // namespace

ScaledMatmul::ScaledMatmul(std::string base_name, std::string user_name, int b_rank, bool trans_a,
                           bool trans_b, bool inplace)
    : base_name_(std::move(base_name)),
      user_name_(std::move(user_name)),
      b_rank_(b_rank),
      trans_a_(trans_a),
      trans_b_(trans_b),
      inplace_(inplace) {}

std::string ScaledMatmul::name() const {
  std::vector<std::string> params;
  if (trans_a_) params.push_back("transA");
  if (trans_b_) params.push_back("transB");
  if (inplace_) params.push_back("inplace");
  return params.empty() ? base_name_ : fmt::format("{}{{{}}}", base_name_, fmt::join(params, ","));
}

std::vector<Type> ScaledMatmul::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 5, base_name_ + " takes five inputs (A, B, C, alpha, beta)");
  const DType dtype = inputs[kA].dtype;
  if (!is_float(dtype) || inputs[kB].dtype != dtype || inputs[kC].dtype != dtype)
    throw TypeError(fmt::format("{}: A, B and C must share a float32 or float64 dtype, got {}, {} and {}",
                                user_name_, dtype_name(dtype), dtype_name(inputs[kB].dtype),
                                dtype_name(inputs[kC].dtype)),
                    "", "gemm and gemv are formed by the optimizer for float products only");
  for (int s : {kAlpha, kBeta})
    if (inputs[s].ndim() != 0 || inputs[s].dtype == DType::Bool)
      throw TypeError(fmt::format("{}: alpha and beta must be numeric 0-d tensors, got a {}", user_name_,
                                  inputs[s].str()),
                      "", "scale factors are scalars");
  std::vector<int64_t> prod = product_dims(user_name_, inputs[kA].shape, inputs[kB].shape, b_rank_, trans_a_, trans_b_);
  if (inputs[kC].ndim() > static_cast<int>(prod.size()))
    throw TypeError(fmt::format("{}: C of shape {} has more dims than the product {}", user_name_,
                                static_shape_str(inputs[kC].shape), static_shape_str(prod)),
                    "", "C must broadcast to the product's shape");
  return {Type(dtype, broadcast_static_shapes({prod, inputs[kC].shape}, user_name_))};
}

std::vector<Shape> ScaledMatmul::infer_shapes(const std::vector<Shape>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 5, base_name_ + " takes five inputs");
  Shape prod = product_dims(user_name_, inputs[kA], inputs[kB], b_rank_, trans_a_, trans_b_);
  return {broadcast_shapes({prod, inputs[kC]}, user_name_)};
}

void ScaledMatmul::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 5 && outputs.size() == 1, base_name_ + ": wrong arity");
  const Tensor a = trans_a_ ? inputs[kA].transpose() : inputs[kA];
  const Tensor b = trans_b_ ? inputs[kB].transpose() : inputs[kB];
  const Tensor& c = inputs[kC];
  const DType dtype = a.dtype();
  TGC_INTERNAL_CHECK(b.dtype() == dtype && c.dtype() == dtype, base_name_ + ": dtypes differ");
  const double alpha = scalar_of(inputs[kAlpha]);
  const double beta = scalar_of(inputs[kBeta]);
  const Shape prod_shape = product_dims(user_name_, inputs[kA].shape(), inputs[kB].shape(), b_rank_, trans_a_, trans_b_);
  const Shape out_shape = broadcast_shapes({prod_shape, c.shape()}, user_name_);

  if (out_shape != prod_shape) {
    // C broadcasts the product: compute alpha*op(A)@op(B) apart, then add beta*C elementwise.
    Tensor prod = Tensor::empty(dtype, prod_shape);
    matmul_strided(a, b, prod, alpha, 0);
    Tensor& out = ensure_output(outputs[0], dtype, out_shape);
    if (beta == 0) {
      copy_elements(prod.broadcast_to(out_shape), out);
      return;
    }
    std::vector<Tensor> scaled(1), sum(1);
    Elemwise(ScalarOpKind::Mul).perform({c, Tensor::full(dtype, {}, beta)}, scaled);
    Elemwise(ScalarOpKind::Add).perform({prod, scaled[0]}, sum);
    copy_elements(sum[0], out);
    return;
  }

  Tensor& out = inplace_ ? ensure_output_inplace(outputs[0], dtype, out_shape, inputs, {kC})
                         : ensure_output(outputs[0], dtype, out_shape);
  // In place, the output is C itself (same layout, checked by ensure_output_inplace);
  // otherwise C is copied (broadcast) into it for BLAS to scale by beta.
  if (beta != 0 && !out.shares_buffer(c)) copy_elements(c.broadcast_to(out_shape), out);
  matmul_strided(a, b, out, alpha, beta);
}

std::shared_ptr<const Op> ScaledMatmul::make_inplace(int output, int input) const {
  if (output != 0 || input != kC) return nullptr;
  return with(trans_a_, trans_b_, true);
}

}  // namespace tgc
