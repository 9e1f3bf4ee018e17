// Op identity and output-buffer reuse.
#include "ops/core/op.h"

#include <algorithm>
#include <functional>
#include <typeinfo>

namespace tgc {

std::string Op::describe_call(const std::vector<std::string>& input_labels) const {
  std::string call = user_name() + "(";
  for (size_t i = 0; i < input_labels.size(); ++i) call += (i ? ", " : "") + input_labels[i];
  return call + ")";
}

bool Op::equals(const Op& other) const {
  return typeid(*this) == typeid(other) && name() == other.name();
}

void Op::validate(const std::vector<Tensor>& inputs) const {
  std::vector<Shape> shapes;
  shapes.reserve(inputs.size());
  for (const Tensor& t : inputs) shapes.push_back(t.shape());
  infer_shapes(shapes);
}

size_t Op::hash() const { return std::hash<std::string>()(name()) ^ typeid(*this).hash_code(); }

std::vector<std::shared_ptr<Variable>> Op::grad(const Node&, const std::vector<std::shared_ptr<Variable>>&) const {
  throw TypeError(name() + " has no gradient", "",
                  "the cost depends on this op; wrap the part that should not be differentiated "
                  "in stop_gradient(), or leave its inputs out of wrt");
}

Tensor& ensure_output(Tensor& slot, DType dtype, const Shape& shape, Device& device) {
  const size_t bytes = static_cast<size_t>(shape_numel(shape)) * dtype_size(dtype);
  bool reusable = slot.defined() && &slot.device() == &device && slot.buffer_use_count() == 1 &&
                  slot.buffer()->bytes() == bytes;
  if (!reusable) {
    slot = Tensor();  // drop the old buffer first: its memory can serve the new one
    slot = Tensor::empty(dtype, shape, device);
  } else if (slot.dtype() != dtype || slot.shape() != shape || slot.offset() != 0 || !slot.is_contiguous()) {
    std::shared_ptr<Buffer> buffer = slot.buffer();
    slot = Tensor();  // the new view below is then the buffer's only holder again
    slot = Tensor::view_of(std::move(buffer), dtype, shape, contiguous_strides(shape), 0);
  }
  return slot;
}

Tensor& ensure_output_inplace(Tensor& slot, DType dtype, const Shape& shape,
                              const std::vector<Tensor>& inputs, const std::vector<int>& aliasable,
                              Device& device) {
  const size_t bytes = static_cast<size_t>(shape_numel(shape)) * dtype_size(dtype);
  if (!slot.defined() || &slot.device() != &device || slot.dtype() != dtype || slot.shape() != shape ||
      slot.offset() != 0 || !slot.is_contiguous() || slot.buffer()->bytes() != bytes || slot.buffer()->adopted())
    return ensure_output(slot, dtype, shape, device);
  long holders = 1;  // the slot itself
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].shares_buffer(slot)) continue;
    bool same_layout = inputs[i].dtype() == dtype && inputs[i].shape() == shape &&
                       inputs[i].strides() == slot.strides() && inputs[i].offset() == 0;
    bool listed = std::find(aliasable.begin(), aliasable.end(), static_cast<int>(i)) != aliasable.end();
    if (!same_layout || !listed) return ensure_output(slot, dtype, shape, device);
    ++holders;
  }
  // A shared variable updated in place holds the buffer too (Buffer::owner_refs).
  if (slot.buffer_use_count() != holders + slot.buffer()->owner_refs()) return ensure_output(slot, dtype, shape, device);
  return slot;
}

}  // namespace tgc
