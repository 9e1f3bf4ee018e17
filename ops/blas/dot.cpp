// Dot: type and shape rules, and the reference evaluation through matmul_strided.
#include "ops/blas/dot.h"

#include <fmt/format.h>

#include "ops/blas/matmul_kernel.h"
#include "runtime/type.h"  // static_shape_str

namespace tgc {
namespace {

// The shared rule of the static and concrete paths: checks ranks and the inner dims and
// returns the output dims (unknown dims stay unknown).
std::vector<int64_t> dot_dims(const std::string& what, const std::vector<int64_t>& a,
                              const std::vector<int64_t>& b) {
  const int ra = static_cast<int>(a.size()), rb = static_cast<int>(b.size());
  if (ra == 0 || rb == 0)
    throw TypeError(fmt::format("{}: operands of shapes {} and {}: a 0-d operand has no dimension to "
                                "contract", what, static_shape_str(a), static_shape_str(b)),
                    "", "to scale by a scalar, multiply elementwise: x * y");
  if (ra > 2 || rb > 2)
    throw TypeError(fmt::format("{}: operands of rank {} and {} (shapes {} and {}); {} takes vectors and "
                                "matrices only", what, ra, rb, static_shape_str(a), static_shape_str(b), what),
                    "", "for stacks of matrices use batched_dot(x, y) or matmul(x, y), which "
                        "multiply matrix by matrix along a leading batch dimension");
  const int ka = ra - 1, kb = 0;
  if (a[ka] != kUnknownDim && b[kb] != kUnknownDim && a[ka] != b[kb])
    throw ShapeError(fmt::format("{}: shapes {} and {} are not aligned (dim {} != dim {})", what,
                                 static_shape_str(a), static_shape_str(b), ka, kb),
                     "", fmt::format("the first operand's last dim ({}) must equal the second's first "
                                     "dim ({}); check the shapes, or transpose an operand (x.T())",
                                     a[ka], b[kb]));
  std::vector<int64_t> out;
  if (ra == 2) out.push_back(a[0]);
  if (rb == 2) out.push_back(b[1]);
  return out;
}

}  // namespace

std::vector<Type> Dot::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 2, "Dot takes two inputs");
  return {Type(promote(inputs[0].dtype, inputs[1].dtype), dot_dims(user_name_, inputs[0].shape, inputs[1].shape))};
}

std::vector<Shape> Dot::infer_shapes(const std::vector<Shape>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 2, "Dot takes two inputs");
  return {dot_dims(user_name_, inputs[0], inputs[1])};
}

void Dot::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& a = inputs.at(0);
  const Tensor& b = inputs.at(1);
  Shape out_shape = dot_dims(user_name_, a.shape(), b.shape());
  DType dtype = promote(a.dtype(), b.dtype());
  Tensor& out = ensure_output(outputs.at(0), dtype, out_shape);
  matmul_strided(a.dtype() == dtype ? a : a.astype(dtype), b.dtype() == dtype ? b : b.astype(dtype), out);
}

}  // namespace tgc
