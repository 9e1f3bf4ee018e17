// ReduceScatter: types, shapes and the host implementation: the input laid out as
// rank-major blocks (no copy when the axis is the first), then the engine's reduce-scatter.
#include "ops/collective/reduce_scatter.h"

#include <fmt/format.h>

#include "ops/collective/all_gather.h"
#include "runtime/error.h"

namespace tgc {

ReduceScatter::ReduceScatter(CollectiveOpKind kind, int axis, std::shared_ptr<CommGroup> group)
    : CollectiveOp(std::move(group)), kind_(kind), axis_(axis) {}

std::string ReduceScatter::name() const {
  return fmt::format("ReduceScatter{{{}, axis={}, {}}}", collective_op_name(kind_), axis_, group_label());
}

std::vector<Type> ReduceScatter::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, "ReduceScatter takes one input");
  Type out = inputs[0];
  if (axis_ < 0 || axis_ >= out.ndim())
    throw ShapeError(fmt::format("reduce_scatter along axis {} of a {}-d tensor", axis_, out.ndim()), "",
                     "scatter along an existing axis");
  if (kind_ == CollectiveOpKind::Mean && !is_float(out.dtype))
    throw TypeError(fmt::format("reduce_scatter(op=mean) of a {} tensor", dtype_name(out.dtype)), "",
                    "a mean over ranks is a float; cast first, or use op='sum'");
  const int64_t dim = out.shape[axis_];
  if (dim >= 0 && dim % group_size() != 0)
    throw ShapeError(fmt::format("reduce_scatter of dim {} (size {}) over {} ranks", axis_, dim, group_size()), "",
                     "the scattered dim must be a multiple of the group's size");
  if (dim >= 0) out.shape[axis_] = dim / group_size();
  return {out};
}

std::vector<Shape> ReduceScatter::infer_shapes(const std::vector<Shape>& inputs) const {
  Shape out = inputs[0];
  if (out[axis_] % group_size() != 0)
    throw ShapeError(fmt::format("reduce_scatter of dim {} (size {}) over {} ranks", axis_, out[axis_], group_size()),
                     "", "the scattered dim must be a multiple of the group's size");
  out[axis_] /= group_size();
  return {out};
}

void ReduceScatter::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Shape out_shape = infer_shapes({inputs[0].shape()})[0];
  // Rank-major blocks: contiguous as they are when scattering the first axis.
  const Tensor send = axis_ == 0 ? inputs[0].contiguous()
                                 : scattered_blocks_view(inputs[0].contiguous(), axis_, group_size()).contiguous();
  Tensor& out = ensure_output(outputs[0], send.dtype(), out_shape);
  host_communicator().reduce_scatter(send.raw_data(), out.raw_data(), static_cast<size_t>(out.numel()), send.dtype(),
                                     engine_reduce(kind_), host_device().default_stream());
  if (kind_ == CollectiveOpKind::Mean) divide_in_place(out, group_size());
}

}  // namespace tgc
