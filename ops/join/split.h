// Split{axis, sizes}: cuts a tensor into consecutive pieces along an axis (a multi-output
// op, one output per piece; each piece is a view of the input).
#pragma once

#include "ops/core/op.h"

namespace tgc {

class Split : public Op {
 public:
  Split(int axis, std::vector<int64_t> sizes) : axis_(axis), sizes_(std::move(sizes)) {}
  int axis() const { return axis_; }
  const std::vector<int64_t>& sizes() const { return sizes_; }

  std::string name() const override;  // "Split{axis=0, sizes=[2, 3]}"
  std::string op_class() const override { return "Split"; }
  std::string user_name() const override { return "split"; }
  int num_outputs() const override { return static_cast<int>(sizes_.size()); }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::vector<std::shared_ptr<Variable>> grad(
      const Node& node, const std::vector<std::shared_ptr<Variable>>& output_grads) const override;
  int view_of_input(int /*output*/) const override { return 0; }

 private:
  // Validates the sizes against an axis of `dim` elements (kUnknownDim: not yet known).
  void check_sizes(int64_t dim) const;
  int axis_;
  std::vector<int64_t> sizes_;
};

}  // namespace tgc
