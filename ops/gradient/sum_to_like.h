// SumToLike: the gradient of a broadcast, summed back to the runtime shape of the operand
// that was broadcast — over the leading dims it lacks and the dims where it has size 1.
#pragma once

#include "ops/core/op.h"
#include "ops/core/variable.h"

namespace tgc {

// Inputs {g, like}: g summed to like's runtime shape (like's rank, g's dtype, a float).
// like's elements are never read. When the shapes are equal the output is g itself.
class SumToLike : public Op {
 public:
  std::string name() const override { return "SumToLike"; }
  std::string op_class() const override { return "SumToLike"; }
  std::string user_name() const override { return "sum_to_like"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  int view_of_input(int /*output*/) const override { return 0; }
  // d/dg: the output gradient broadcast back to g's shape; like only lends its shape.
  std::vector<VarPtr> grad(const Node& node, const std::vector<VarPtr>& output_grads) const override;
};

}  // namespace tgc
