// BatchedDot: type and shape rules, and one matmul_strided per batch entry.
#include "ops/blas/batched_dot.h"

#include <fmt/format.h>

#include "ops/blas/blas_layout.h"
#include "ops/blas/matmul_kernel.h"
#include "runtime/type.h"  // static_shape_str

namespace tgc {
namespace {

// The shared static/concrete rule: checks ranks, inner dims and batch dims, and returns
// the output dims (B, m, n), unknown where not known. As in NumPy's matmul, a 1-d operand
// is a row (left) or column (right) vector whose dim is dropped from the result.
std::vector<int64_t> batched_dims(const std::string& what, const std::vector<int64_t>& a,
                                  const std::vector<int64_t>& b) {
  const int ra = static_cast<int>(a.size()), rb = static_cast<int>(b.size());
  if (ra < 1 || rb < 1 || ra > 3 || rb > 3 || (ra < 3 && rb < 3))
    throw TypeError(fmt::format("{}: operands of rank {} and {} (shapes {} and {}); {} multiplies stacks of "
                                "matrices: a 3-d operand by a 3-d, 2-d or 1-d one",
                                what, ra, rb, static_shape_str(a), static_shape_str(b), what),
                    "", ra > 3 || rb > 3 ? "reshape the operands to at most 3 dimensions (batch, rows, cols)"
                        : ra == 0 || rb == 0 ? "to scale by a scalar, multiply elementwise: x * y"
                                             : "for vectors and single matrices use dot(x, y)");
  const int dim_ka = ra - 1, dim_kb = rb == 1 ? 0 : rb - 2;
  const int64_t ka = a[dim_ka], kb = b[dim_kb];
  if (ka != kUnknownDim && kb != kUnknownDim && ka != kb)
    throw ShapeError(fmt::format("{}: shapes {} and {} are not aligned (dim {} != dim {})", what,
                                 static_shape_str(a), static_shape_str(b), dim_ka, dim_kb),
                     "", fmt::format("the first operand's rows have {} entries but the second's columns have "
                                     "{}; check the shapes, or transpose the last two axes of an operand",
                                     ka, kb));
  int64_t batch;
  if (ra == 3 && rb == 3) {
    const int64_t ba = a[0], bb = b[0];
    if (ba != kUnknownDim && bb != kUnknownDim && ba != bb && ba != 1 && bb != 1)
      throw ShapeError(fmt::format("{}: batch sizes {} and {} differ (shapes {} and {})", what, ba, bb,
                                   static_shape_str(a), static_shape_str(b)),
                       "", "the leading (batch) dims must be equal, or 1 to use one matrix for every entry");
    if (ba == 1) batch = bb;
    else if (bb == 1) batch = ba;
    else batch = ba != kUnknownDim ? ba : bb;
  } else {
    batch = ra == 3 ? a[0] : b[0];
  }
  std::vector<int64_t> out = {batch};
  if (ra >= 2) out.push_back(a[ra - 2]);
  if (rb >= 2) out.push_back(b[rb - 1]);
  return out;
}

// Entry i of a batch operand (a 2-d view), or the operand itself when it has no batch dim;
// a batch of 1 is broadcast.
Tensor batch_entry(const Tensor& t, int64_t i) {
  if (t.ndim() < 3) return t;
  int64_t j = t.shape()[0] == 1 ? 0 : i;
  return t.view({t.shape()[1], t.shape()[2]}, {t.strides()[1], t.strides()[2]}, t.offset() + j * t.strides()[0]);
}

// An operand whose matrices BLAS cannot read in place is copied once for the whole batch,
// rather than once per entry inside matmul_strided.
Tensor blas_ready(const Tensor& t) {
  if (!is_float(t.dtype()) || t.ndim() < 3) return t;
  int r = t.ndim();
  bool ok = blas_matrix_layout(t.shape()[r - 2], t.shape()[r - 1], t.strides()[r - 2], t.strides()[r - 1]).has_value();
  return ok ? t : t.copy();
}

}  // namespace

std::vector<Type> BatchedDot::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 2, "BatchedDot takes two inputs");
  return {Type(promote(inputs[0].dtype, inputs[1].dtype), batched_dims(user_name_, inputs[0].shape, inputs[1].shape))};
}

std::vector<Shape> BatchedDot::infer_shapes(const std::vector<Shape>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 2, "BatchedDot takes two inputs");
  return {batched_dims(user_name_, inputs[0], inputs[1])};
}

void BatchedDot::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  Shape out_shape = batched_dims(user_name_, inputs.at(0).shape(), inputs.at(1).shape());
  DType dtype = promote(inputs[0].dtype(), inputs[1].dtype());
  Tensor a = blas_ready(inputs[0].dtype() == dtype ? inputs[0] : inputs[0].astype(dtype));
  Tensor b = blas_ready(inputs[1].dtype() == dtype ? inputs[1] : inputs[1].astype(dtype));
  Tensor& out = ensure_output(outputs.at(0), dtype, out_shape);
  const Shape entry_shape(out_shape.begin() + 1, out_shape.end());
  const Strides entry_strides = contiguous_strides(entry_shape);
  const int64_t entry_size = shape_numel(entry_shape);
  for (int64_t i = 0; i < out_shape[0]; ++i)
    matmul_strided(batch_entry(a, i), batch_entry(b, i), out.view(entry_shape, entry_strides, out.offset() + i * entry_size));
}

}  // namespace tgc
