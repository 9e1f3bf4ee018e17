// Broadcast: every rank gets the root rank's tensor (MPI_Bcast, ncclBroadcast). Every rank
// passes a tensor of the same type and shape; only the root's values are read.
#pragma once

#include "ops/collective/collective_op.h"

namespace tgc {

class Broadcast : public CollectiveOp {
 public:
  Broadcast(int root, std::shared_ptr<CommGroup> group);
  int root() const { return root_; }
  // "Broadcast{root=0, group=world(2)}"
  std::string name() const override;
  double bus_factor() const override { return 1.0; }
  std::string user_name() const override { return "broadcast"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // On the root, the sum over ranks of the output gradient; zero elsewhere.
  std::vector<VarPtr> grad(const Node& node, const std::vector<VarPtr>& output_grads) const override;

 private:
  int root_;
};

}  // namespace tgc
