// ReduceScatter: the ranks' tensors are reduced elementwise (sum, mean, max, min) and rank r
// keeps the r-th of `size` equal stretches along `axis` (MPI_Reduce_scatter_block,
// ncclReduceScatter). The input's dim `axis` must be a multiple of the group's size.
#pragma once

#include "ops/collective/collective_op.h"

namespace tgc {

class ReduceScatter : public CollectiveOp {
 public:
  ReduceScatter(CollectiveOpKind kind, int axis, std::shared_ptr<CommGroup> group);
  CollectiveOpKind kind() const { return kind_; }
  int axis() const { return axis_; }
  // "ReduceScatter{sum, axis=0, group=world(2)}"
  std::string name() const override;
  double bus_factor() const override { return 1.0 * (group_size() - 1) / group_size(); }
  std::string user_name() const override { return "reduce_scatter"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // sum: all_gather of the output gradient; mean: the same divided by the size; max/min:
  // the gathered gradient where the input equals the gathered result.
  std::vector<VarPtr> grad(const Node& node, const std::vector<VarPtr>& output_grads) const override;

 private:
  CollectiveOpKind kind_;
  int axis_;
};

}  // namespace tgc
