// Reshape's rules: validation of the target, static and concrete shape resolution.
#include "ops/shape/reshape.h"

#include <fmt/format.h>

namespace tgc {

namespace {

// Throws for targets no input can have: two -1 or a dimension below -1. Returns the
// position of the -1, or -1 when there is none.
int check_target(const Shape& target) {
  int unknown = -1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] < -1)
      throw ValueError(fmt::format("reshape: invalid dimension {} in shape {}", target[i],
                                   shape_str(target)),
                       "", "give every dimension as a size >= 0, or -1 for one dimension to infer");
    if (target[i] == -1) {
      if (unknown >= 0)
        throw ValueError(fmt::format("reshape: can only specify one unknown dimension (-1), got shape {}",
                                     shape_str(target)),
                         "", "give all but one dimension explicitly");
      unknown = static_cast<int>(i);
    }
  }
  return unknown;
}

}  // namespace

Shape resolve_reshape(const Shape& target, int64_t size) {
  int unknown = check_target(target);
  int64_t known = 1;
  for (int64_t d : target)
    if (d != -1 && __builtin_mul_overflow(known, d, &known))
      throw ShapeError("reshape: the target shape " + shape_str(target) + " has more than 2**63 elements", "",
                       "check the target shape");
  Shape out = target;
  bool ok;
  if (unknown < 0) {
    ok = known == size;
  } else {
    ok = known != 0 && size % known == 0;
    if (ok) out[unknown] = size / known;
  }
  if (!ok)
    throw ShapeError(fmt::format("cannot reshape array of size {} into shape {}", size, shape_str(target)),
                     "", unknown < 0 ? "the new shape must have as many elements as the input"
                                     : "the product of the given dimensions must divide the input's size");
  return out;
}

std::string Reshape::name() const { return "Reshape{" + shape_str(target_) + "}"; }

std::vector<Type> Reshape::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, "Reshape takes one input");
  check_target(target_);
  const Type& x = inputs[0];
  // The input's size is known when every dim is, or when one of them is 0.
  bool has_zero = false;
  for (int64_t d : x.shape) has_zero |= d == 0;
  if (has_zero) return {Type(x.dtype, resolve_reshape(target_, 0))};
  if (x.fully_known()) return {Type(x.dtype, resolve_reshape(target_, shape_numel(x.shape)))};
  return {Type(x.dtype, target_)};  // a -1 stays unknown (kUnknownDim is -1 too)
}

std::vector<Shape> Reshape::infer_shapes(const std::vector<Shape>& inputs) const {
  return {resolve_reshape(target_, shape_numel(inputs[0]))};
}

void Reshape::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  outputs[0] = inputs[0].reshape(resolve_reshape(target_, inputs[0].numel()));
}

}  // namespace tgc
