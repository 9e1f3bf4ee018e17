// DimShuffle's rules: pattern validation, dropped axes, and the view it produces.
#include "ops/shape/dimshuffle.h"

#include <fmt/format.h>

namespace tgc {

std::string DimShuffle::name() const {
  std::string out = "DimShuffle{";
  for (size_t i = 0; i < pattern_.size(); ++i) {
    if (i) out += ",";
    out += pattern_[i] == -1 ? std::string("x") : std::to_string(pattern_[i]);
  }
  return out + "}";
}

std::vector<int> DimShuffle::dropped_axes(int ndim) const {
  std::vector<bool> used(ndim, false);
  for (int p : pattern_) {
    if (p == -1) continue;
    if (p < -1 || p >= ndim)
      throw ShapeError(fmt::format("{}: pattern entry {} is not an axis of a {}-d tensor", name(), p, ndim),
                       "", fmt::format("entries are input axes 0 .. {}, or -1 ('x') for a new axis", ndim - 1));
    if (used[p])
      throw ShapeError(fmt::format("{}: input axis {} appears twice in the pattern", name(), p), "",
                       "each input axis may appear at most once");
    used[p] = true;
  }
  std::vector<int> dropped;
  for (int a = 0; a < ndim; ++a)
    if (!used[a]) dropped.push_back(a);
  return dropped;
}

std::vector<Type> DimShuffle::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, "DimShuffle takes one input");
  const Type& x = inputs[0];
  for (int a : dropped_axes(x.ndim()))
    if (x.shape[a] != kUnknownDim && x.shape[a] != 1)
      throw ShapeError(fmt::format("{}: cannot drop axis {} of {}: only axes of size 1 can be dropped",
                                   name(), a, x.str()),
                       "", "keep the axis in the pattern, or select one element of it by indexing");
  std::vector<int64_t> out;
  for (int p : pattern_) out.push_back(p == -1 ? 1 : x.shape[p]);
  return {Type(x.dtype, out)};
}

std::vector<Shape> DimShuffle::infer_shapes(const std::vector<Shape>& inputs) const {
  const Shape& x = inputs[0];
  for (int a : dropped_axes(static_cast<int>(x.size())))
    if (x[a] != 1)
      throw ShapeError(fmt::format("{}: cannot drop axis {} of a tensor of shape {}: only axes of size 1 can "
                                   "be dropped",
                                   name(), a, shape_str(x)),
                       "", "keep the axis in the pattern, or select one element of it by indexing");
  Shape out;
  for (int p : pattern_) out.push_back(p == -1 ? 1 : x[p]);
  return {out};
}

void DimShuffle::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& x = inputs[0];
  Shape shape = infer_shapes({x.shape()})[0];
  Strides strides;
  for (int p : pattern_) strides.push_back(p == -1 ? 0 : x.strides()[p]);
  outputs[0] = x.view(shape, strides, x.offset());
}

}  // namespace tgc
