// AllGather: every rank gets the ranks' tensors concatenated along `axis` in rank order
// (MPI_Allgather, ncclAllGather); the output's dim `axis` is the group's size times the
// input's. Every rank's tensor has the same shape.
#pragma once

#include "ops/collective/collective_op.h"

namespace tgc {

class AllGather : public CollectiveOp {
 public:
  AllGather(int axis, std::shared_ptr<CommGroup> group);
  int axis() const { return axis_; }
  // "AllGather{axis=0, group=world(2)}"
  std::string name() const override;
  double bus_factor() const override { return 1.0 * (group_size() - 1) / group_size(); }
  std::string user_name() const override { return "all_gather"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // reduce_scatter(sum) of the output gradient along the same axis.
  std::vector<VarPtr> grad(const Node& node, const std::vector<VarPtr>& output_grads) const override;

 private:
  int axis_;
};

// The rank-major blocks an engine gathers into (shape [size, *local]) seen as the output
// split at `axis`: shape [d0, ..., size, d_axis, ...], which is the output's reshape. A view.
Tensor gathered_view(const Tensor& blocks, int axis);
// The inverse, for reduce_scatter's send buffer: `full` (C-contiguous; dim `axis` = size *
// local) as [size, *local] with block r the r-th stretch of `axis`. A view of `full`.
Tensor scattered_blocks_view(const Tensor& full, int axis, int size);

}  // namespace tgc
