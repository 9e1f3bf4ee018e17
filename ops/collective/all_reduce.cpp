// AllReduce: types, shapes and the host implementation through the group's communicator.
#include "ops/collective/all_reduce.h"

#include <fmt/format.h>

#include "runtime/error.h"

namespace tgc {

AllReduce::AllReduce(CollectiveOpKind kind, std::shared_ptr<CommGroup> group)
    : CollectiveOp(std::move(group)), kind_(kind) {}

std::string AllReduce::name() const { return fmt::format("AllReduce{{{}, {}}}", collective_op_name(kind_), group_label()); }

std::vector<Type> AllReduce::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, "AllReduce takes one input");
  if (kind_ == CollectiveOpKind::Mean && !is_float(inputs[0].dtype))
    throw TypeError(fmt::format("all_reduce(op=mean) of a {} tensor", dtype_name(inputs[0].dtype)), "",
                    "a mean over ranks is a float; cast first, or use op='sum'");
  return {inputs[0]};
}

std::vector<Shape> AllReduce::infer_shapes(const std::vector<Shape>& inputs) const { return {inputs[0]}; }

void AllReduce::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor in = inputs[0].contiguous();
  Tensor& out = ensure_output(outputs[0], in.dtype(), in.shape());
  host_communicator().all_reduce(in.raw_data(), out.raw_data(), static_cast<size_t>(in.numel()), in.dtype(),
                                 engine_reduce(kind_), host_device().default_stream());
  if (kind_ == CollectiveOpKind::Mean) divide_in_place(out, group_size());
}

}  // namespace tgc
