// AllGather: types, shapes and the host implementation: the engine gathers rank-major
// blocks, which a copy lays out along the axis (no copy when the axis is the first).
#include "ops/collective/all_gather.h"

#include <fmt/format.h>

#include "runtime/error.h"

namespace tgc {
namespace {

int64_t times_size(int64_t dim, int size) { return dim < 0 ? -1 : dim * size; }

}  // namespace

AllGather::AllGather(int axis, std::shared_ptr<CommGroup> group) : CollectiveOp(std::move(group)), axis_(axis) {}

std::string AllGather::name() const { return fmt::format("AllGather{{axis={}, {}}}", axis_, group_label()); }

std::vector<Type> AllGather::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, "AllGather takes one input");
  Type out = inputs[0];
  if (axis_ < 0 || axis_ >= out.ndim())
    throw ShapeError(fmt::format("all_gather along axis {} of a {}-d tensor", axis_, out.ndim()), "",
                     "gather along an existing axis; reshape a 0-d value to (1,) first");
  out.shape[axis_] = times_size(out.shape[axis_], group_size());
  return {out};
}

std::vector<Shape> AllGather::infer_shapes(const std::vector<Shape>& inputs) const {
  Shape out = inputs[0];
  out[axis_] *= group_size();
  return {out};
}

Tensor gathered_view(const Tensor& blocks, int axis) {
  // blocks: [size, d0, ..., d_axis, ...]; the output is [d0, ..., size * d_axis, ...] where
  // element (..., r * d_axis + j, ...) is blocks[r, ..., j, ...]: move the block dim next
  // to `axis`, then merge the two.
  const int ndim = blocks.ndim() - 1;
  std::vector<int> perm;
  for (int i = 0; i < axis; ++i) perm.push_back(i + 1);
  perm.push_back(0);
  for (int i = axis; i < ndim; ++i) perm.push_back(i + 1);
  return blocks.transpose(perm);
}

Tensor scattered_blocks_view(const Tensor& full, int axis, int size) {
  Shape split = full.shape();
  const int64_t local = split[axis] / size;
  split[axis] = local;
  split.insert(split.begin() + axis, size);
  Tensor v = full.reshape(split);  // [d0, ..., size, local, ...]: a view of the dense `full`
  std::vector<int> perm{axis};
  for (int i = 0; i < v.ndim(); ++i)
    if (i != axis) perm.push_back(i);
  return v.transpose(perm);
}

void AllGather::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor in = inputs[0].contiguous();
  const Shape out_shape = infer_shapes({in.shape()})[0];
  Tensor& out = ensure_output(outputs[0], in.dtype(), out_shape);
  const size_t count = static_cast<size_t>(in.numel());
  if (axis_ == 0) {  // rank-major blocks are already the output's layout
    host_communicator().all_gather(in.raw_data(), out.raw_data(), count, in.dtype(), host_device().default_stream());
    return;
  }
  Shape blocks_shape = in.shape();
  blocks_shape.insert(blocks_shape.begin(), group_size());
  Tensor blocks = Tensor::empty(in.dtype(), blocks_shape);
  host_communicator().all_gather(in.raw_data(), blocks.raw_data(), count, in.dtype(), host_device().default_stream());
  // out viewed as [d0, ..., size, d_axis, ...] receives the moved blocks.
  Shape split = in.shape();
  split.insert(split.begin() + axis_, group_size());
  copy_elements(gathered_view(blocks, axis_), out.reshape(split));
}

}  // namespace tgc
