// DimShuffle{pattern}: Theano's axis permutation that can also insert broadcastable axes
// ('x', written -1) and drop size-1 axes. The result is always a view of the input;
// transpose, expand_dims and squeeze are built from it.
#pragma once

#include "ops/core/op.h"

namespace tgc {

class DimShuffle : public Op {
 public:
  // pattern[i] is the input axis that becomes output axis i, or -1 for a new axis of size
  // 1. Input axes left out are dropped and must have size 1. `user_name` is the function
  // the user called (dimshuffle, transpose, squeeze, expand_dims); it is not part of the
  // op's identity.
  explicit DimShuffle(std::vector<int> pattern, std::string user_name = "dimshuffle")
      : pattern_(std::move(pattern)), user_name_(std::move(user_name)) {}
  const std::vector<int>& pattern() const { return pattern_; }

  std::string name() const override;  // "DimShuffle{1,0}", "DimShuffle{x,0}"
  std::string op_class() const override { return "DimShuffle"; }
  std::string user_name() const override { return user_name_; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  int view_of_input(int /*output*/) const override { return 0; }
  std::vector<std::shared_ptr<Variable>> grad(
      const Node& node, const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 private:
  // Checks the pattern against an input of `ndim` axes; returns the dropped axes.
  std::vector<int> dropped_axes(int ndim) const;
  std::vector<int> pattern_;
  std::string user_name_;
};

}  // namespace tgc
