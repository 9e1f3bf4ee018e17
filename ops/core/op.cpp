// Op identity and output-buffer reuse.
#include "ops/core/op.h"

#include <functional>
#include <typeinfo>

namespace tgc {

bool Op::equals(const Op& other) const {
  return typeid(*this) == typeid(other) && name() == other.name();
}

size_t Op::hash() const { return std::hash<std::string>()(name()) ^ typeid(*this).hash_code(); }

std::vector<std::shared_ptr<Variable>> Op::grad(const Node&, const std::vector<std::shared_ptr<Variable>>&) const {
  throw TypeError(name() + " has no gradient", "",
                  "the cost depends on this op; wrap the part that should not be differentiated "
                  "in stop_gradient(), or leave its inputs out of wrt");
}

Tensor& ensure_output(Tensor& slot, DType dtype, const Shape& shape) {
  bool reusable = slot.defined() && slot.on_host() && slot.dtype() == dtype &&
                  slot.shape() == shape && slot.offset() == 0 && slot.is_contiguous() &&
                  slot.buffer_use_count() == 1 &&
                  slot.buffer()->bytes() == static_cast<size_t>(shape_numel(shape)) * dtype_size(dtype);
  if (!reusable) slot = Tensor::empty(dtype, shape);
  return slot;
}

}  // namespace tgc
