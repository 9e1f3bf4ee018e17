// Flatten{ndim}: Theano's flatten — keeps the first ndim-1 axes and merges the rest into
// one. A separate op from Reshape because the kept axes may be statically unknown, which a
// static reshape target cannot express. A view when the input is contiguous or its merged
// axes can be walked as one (a transposed view whose merged axes keep their order); a copy
// otherwise.
#pragma once

#include "ops/core/op.h"

namespace tgc {

class Flatten : public Op {
 public:
  explicit Flatten(int ndim) : ndim_(ndim) {}
  int ndim() const { return ndim_; }

  std::string name() const override { return "Flatten{" + std::to_string(ndim_) + "}"; }
  std::string op_class() const override { return "Flatten"; }
  std::string user_name() const override { return "flatten"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // Whether perform returns a view of `x` (its layout only: also for a device tensor, whose
  // elements it never reads): contiguous, empty, or merged axes that walk as one.
  bool views(const Tensor& x) const;
  int view_of_input(int /*output*/) const override { return 0; }
  std::vector<std::shared_ptr<Variable>> grad(
      const Node& node, const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 private:
  int ndim_;
};

}  // namespace tgc
