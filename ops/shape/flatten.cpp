// Flatten's rules: which axes are kept, and the size of the merged one.
#include "ops/shape/flatten.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "ops/elemwise/broadcast.h"

namespace tgc {

namespace {

void check_rank(int ndim, int input_ndim) {
  if (ndim < 1 || ndim > std::max(input_ndim, 1))
    throw ShapeError(fmt::format("flatten: cannot flatten a {}-d tensor to {} dimension(s)", input_ndim, ndim),
                     "", fmt::format("ndim must be between 1 and {}", std::max(input_ndim, 1)));
}

}  // namespace

std::vector<Type> Flatten::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, "Flatten takes one input");
  const Type& x = inputs[0];
  check_rank(ndim_, x.ndim());
  std::vector<int64_t> out(x.shape.begin(), x.shape.begin() + (ndim_ - 1));
  // The merged axis is known when all merged dims are, or when one of them is 0.
  int64_t merged = 1;
  bool known = true, zero = false;
  for (int d = ndim_ - 1; d < x.ndim(); ++d) {
    if (x.shape[d] == kUnknownDim) known = false;
    else if (x.shape[d] == 0) zero = true;
    else merged *= x.shape[d];
  }
  out.push_back(zero ? 0 : known ? merged : kUnknownDim);
  return {Type(x.dtype, out)};
}

std::vector<Shape> Flatten::infer_shapes(const std::vector<Shape>& inputs) const {
  const Shape& x = inputs[0];
  check_rank(ndim_, static_cast<int>(x.size()));
  Shape out(x.begin(), x.begin() + (ndim_ - 1));
  int64_t merged = 1;
  for (size_t d = ndim_ - 1; d < x.size(); ++d) merged *= x[d];
  out.push_back(merged);
  return {out};
}

namespace {

// The stride of the merged axis when the axes from `first` on can be walked as one axis of
// the input's memory (collapse_dims merges them into one), as for a contiguous input but also
// for a transposed view whose merged axes keep their order: stacked (T, m, k) seen as
// (k, T, m) merges to (k, T * m) with stride k. Only for inputs with elements.
std::optional<int64_t> merged_stride(const Tensor& x, int first) {
  Shape shape(x.shape().begin() + first, x.shape().end());
  std::vector<Strides> strides{Strides(x.strides().begin() + first, x.strides().end())};
  collapse_dims(shape, strides);
  if (shape.size() > 1) return std::nullopt;
  return shape.empty() ? 1 : strides[0][0];
}

}  // namespace

bool Flatten::views(const Tensor& x) const {
  return x.numel() == 0 || x.is_contiguous() || merged_stride(x, ndim_ - 1).has_value();
}

void Flatten::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& x = inputs[0];
  const Shape shape = infer_shapes({x.shape()})[0];
  // A view whenever the merged axes allow one (NumPy's reshape does the same), so that the
  // stacked steps a loop's pushed-out product reads cost no copy; a copy otherwise.
  if (x.numel() > 0 && !x.is_contiguous())
    if (std::optional<int64_t> stride = merged_stride(x, ndim_ - 1)) {
      Strides strides(x.strides().begin(), x.strides().begin() + (ndim_ - 1));
      strides.push_back(*stride);
      outputs[0] = x.view(shape, strides, x.offset());
      return;
    }
  outputs[0] = x.reshape(shape);
}

}  // namespace tgc
