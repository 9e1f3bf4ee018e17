// ShapeOf: Theano's Shape, a tensor's shape as an int64 vector (x.shape in Python, shape_of(x)
// in C++). It reads the tensor's metadata only, never its elements: on a GPU the node runs on
// the host beside the device tensor, which is not copied for it (placement), and a shape the
// compiler knows when the function is compiled folds into a constant (canonicalize).
#pragma once

#include "ops/core/op.h"

namespace tgc {

class ShapeOf : public Op {
 public:
  std::string name() const override { return "Shape"; }
  std::string op_class() const override { return "Shape"; }
  std::string user_name() const override { return "shape_of"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // A shape does not change with small changes of the elements: no gradient flows.
  std::vector<std::shared_ptr<Variable>> grad(
      const Node& node, const std::vector<std::shared_ptr<Variable>>& output_grads) const override;
};

// Whether `op` reads nothing of its inputs but their metadata (ShapeOf, ArangeLike): placement
// leaves its inputs where they are.
bool reads_only_metadata(const Op& op);

}  // namespace tgc
