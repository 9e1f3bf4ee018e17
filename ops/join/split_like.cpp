// SplitLike: piece sizes from the like inputs, checked against x; the views it produces.
#include "ops/join/split_like.h"

#include <fmt/format.h>

namespace tgc {

std::string SplitLike::name() const { return fmt::format("SplitLike{{axis={}, n={}}}", axis_, n_); }

std::vector<Type> SplitLike::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(static_cast<int>(inputs.size()) == n_ + 1, "SplitLike takes x and n like tensors");
  const Type& x = inputs[0];
  if (x.ndim() == 0) throw TypeError("split_like: a scalar cannot be split", "", "split a tensor of rank >= 1");
  const int axis = normalize_axis(axis_, x.ndim(), "split_like");
  int64_t total = 0;
  std::vector<Type> out;
  for (int i = 1; i <= n_; ++i) {
    const Type& like = inputs[i];
    if (like.ndim() <= axis)
      throw TypeError(fmt::format("split_like: piece {} is sized like a {}, which has no axis {}", i - 1, like.str(),
                                  axis),
                      "", "each like tensor must have the split axis");
    const int64_t s = like.shape[axis];
    total = (total == kUnknownDim || s == kUnknownDim) ? kUnknownDim : total + s;
    Type t = x;
    t.shape[axis] = s;
    out.push_back(t);
  }
  if (total != kUnknownDim && x.shape[axis] != kUnknownDim && total != x.shape[axis])
    throw ShapeError(fmt::format("split_like: the pieces sum to {} along axis {} but {} has size {} there", total,
                                 axis, x.str(), x.shape[axis]),
                     "", "the like tensors' sizes along the axis must add up to x's");
  return out;
}

// The rule is written once, on static types; a concrete shape is a fully known type.
std::vector<Shape> SplitLike::infer_shapes(const std::vector<Shape>& inputs) const {
  std::vector<Type> types;
  for (const Shape& s : inputs) types.emplace_back(DType::Float32, s);
  std::vector<Shape> out;
  for (Type& piece : infer_types(types)) out.push_back(std::move(piece.shape));
  return out;
}

void SplitLike::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  std::vector<Shape> shapes;
  for (const Tensor& t : inputs) shapes.push_back(t.shape());
  shapes = infer_shapes(shapes);
  const Tensor& x = inputs[0];
  const int axis = normalize_axis(axis_, x.ndim(), "split_like");
  int64_t start = 0;
  for (int i = 0; i < n_; ++i) {
    outputs[i] = x.view(shapes[i], x.strides(), x.offset() + start * x.strides()[axis]);
    start += shapes[i][axis];
  }
}

}  // namespace tgc
