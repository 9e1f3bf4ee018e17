// Broadcast: types, shapes and the host implementation through the group's communicator.
#include "ops/collective/broadcast.h"

#include <fmt/format.h>

#include "runtime/error.h"

namespace tgc {

Broadcast::Broadcast(int root, std::shared_ptr<CommGroup> group) : CollectiveOp(std::move(group)), root_(root) {
  if (root_ < 0 || root_ >= group_size())
    throw ValueError(fmt::format("broadcast from root {} in a group of {} ranks", root_, group_size()), "",
                     "root is a rank of the group: 0 <= root < size");
}

std::string Broadcast::name() const { return fmt::format("Broadcast{{root={}, {}}}", root_, group_label()); }

std::vector<Type> Broadcast::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, "Broadcast takes one input");
  return {inputs[0]};
}

std::vector<Shape> Broadcast::infer_shapes(const std::vector<Shape>& inputs) const { return {inputs[0]}; }

void Broadcast::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor in = inputs[0].contiguous();
  Tensor& out = ensure_output(outputs[0], in.dtype(), in.shape());
  host_communicator().broadcast(in.raw_data(), out.raw_data(), static_cast<size_t>(in.numel()), in.dtype(), root_,
                                host_device().default_stream());
}

}  // namespace tgc
