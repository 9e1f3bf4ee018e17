// Split: size validation and the views it produces.
#include "ops/join/split.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tgc {

std::string Split::name() const { return fmt::format("Split{{axis={}, sizes=[{}]}}", axis_, fmt::join(sizes_, ", ")); }

void Split::check_sizes(int64_t dim) const {
  if (sizes_.empty()) throw ValueError("split: no sizes given", "", "give the size of each piece");
  int64_t total = 0;
  for (int64_t s : sizes_) {
    if (s < 0)
      throw ValueError(fmt::format("split: negative piece size {} in sizes [{}]", s, fmt::join(sizes_, ", ")), "",
                       "every piece size must be >= 0");
    if (__builtin_add_overflow(total, s, &total))
      throw ValueError(fmt::format("split: sizes [{}] sum past 2**63", fmt::join(sizes_, ", ")), "",
                       "the piece sizes must add up to the size of the split axis");
  }
  if (dim != kUnknownDim && total != dim)
    throw ShapeError(fmt::format("split: sizes [{}] sum to {} but axis {} has size {}", fmt::join(sizes_, ", "),
                                 total, axis_, dim),
                     "", "the piece sizes must add up to the size of the split axis");
}

std::vector<Type> Split::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, "Split takes one input");
  const Type& x = inputs[0];
  if (x.ndim() == 0)
    throw TypeError("split: a scalar cannot be split", "", "split a tensor of rank >= 1");
  const int axis = normalize_axis(axis_, x.ndim(), "split");
  check_sizes(x.shape[axis]);
  std::vector<Type> out;
  for (int64_t s : sizes_) {
    Type t = x;
    t.shape[axis] = s;
    out.push_back(t);
  }
  return out;
}

// The rule is written once, on static types; a concrete shape is a fully known type.
std::vector<Shape> Split::infer_shapes(const std::vector<Shape>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, "Split takes one input");
  std::vector<Shape> out;
  for (Type& piece : infer_types({Type(DType::Float32, inputs[0])})) out.push_back(std::move(piece.shape));
  return out;
}

void Split::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& x = inputs[0];
  std::vector<Shape> shapes = infer_shapes({x.shape()});
  const int axis = normalize_axis(axis_, x.ndim(), "split");
  int64_t start = 0;
  for (size_t i = 0; i < sizes_.size(); ++i) {
    outputs[i] = x.view(shapes[i], x.strides(), x.offset() + start * x.strides()[axis]);
    start += sizes_[i];
  }
}

}  // namespace tgc
