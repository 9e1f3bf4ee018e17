// AllReduce: every rank gets the reduction (sum, mean, max, min) over the ranks of a group of
// each rank's tensor, elementwise (MPI_Allreduce, ncclAllReduce). Same type as the input.
#pragma once

#include "ops/collective/collective_op.h"

namespace tgc {

class AllReduce : public CollectiveOp {
 public:
  AllReduce(CollectiveOpKind kind, std::shared_ptr<CommGroup> group);
  CollectiveOpKind kind() const { return kind_; }
  // "AllReduce{sum, group=world(2)}"
  std::string name() const override;
  double bus_factor() const override { return 2.0 * (group_size() - 1) / group_size(); }
  std::string user_name() const override { return "all_reduce"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // sum: all_reduce(sum) of the output gradient (every rank's cost depends on every rank's
  // input); mean: all_reduce(mean); max/min: the summed gradient where the input equals
  // the result.
  std::vector<VarPtr> grad(const Node& node, const std::vector<VarPtr>& output_grads) const override;

 private:
  CollectiveOpKind kind_;
};

}  // namespace tgc
