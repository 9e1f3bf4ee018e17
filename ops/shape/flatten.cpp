// Flatten's rules: which axes are kept, and the size of the merged one.
#include "ops/shape/flatten.h"

#include <algorithm>

#include <fmt/format.h>

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

void Flatten::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  outputs[0] = inputs[0].reshape(infer_shapes({inputs[0].shape()})[0]);
}

}  // namespace tgc
