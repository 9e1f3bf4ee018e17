// SplitLike{axis, n}: Split with piece sizes read from other tensors when the function
// runs. Concatenate's gradient needs it: the pieces of g must match the inputs' sizes
// along the axis, which are often unknown when the graph is built (Split's are static).
#pragma once

#include "ops/core/op.h"

namespace tgc {

// Inputs {x, like_0, ..., like_{n-1}}: output i is the next like_i.shape[axis] elements
// of x along `axis` (a view of x); the likes' elements are never read.
class SplitLike : public Op {
 public:
  SplitLike(int axis, int n) : axis_(axis), n_(n) {}
  int axis() const { return axis_; }

  std::string name() const override;  // "SplitLike{axis=0, n=2}"
  std::string op_class() const override { return "Split"; }
  std::string user_name() const override { return "split_like"; }
  int num_outputs() const override { return n_; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  int view_of_input(int /*output*/) const override { return 0; }
  std::vector<std::shared_ptr<Variable>> grad(
      const Node& node, const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 private:
  int axis_;
  int n_;
};

}  // namespace tgc
