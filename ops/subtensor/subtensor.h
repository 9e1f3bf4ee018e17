// Subtensor (basic indexing: a view) and AdvancedSubtensor (indexing with integer arrays:
// a gather into a new tensor), both described by one IndexSpec.
#pragma once

#include "ops/core/op.h"
#include "ops/subtensor/index_spec.h"

namespace tgc {

// x[1, ::2, newaxis]: inputs {x}; the result is a view of x.
class Subtensor : public Op {
 public:
  explicit Subtensor(IndexSpec spec);
  const IndexSpec& spec() const { return spec_; }

  std::string name() const override { return "Subtensor{" + spec_.str() + "}"; }
  std::string op_class() const override { return "Subtensor"; }
  std::string user_name() const override { return "subtensor"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::vector<std::shared_ptr<Variable>> grad(
      const Node& node, const std::vector<std::shared_ptr<Variable>>& output_grads) const override;
  int view_of_input(int /*output*/) const override { return 0; }

 private:
  IndexSpec spec_;
};

// x[idx, 1:], x[:, rows, cols]: inputs {x, index arrays in entry order}; NumPy's advanced
// indexing (arrays broadcast together, negative indices wrap, bounds checked).
class AdvancedSubtensor : public Op {
 public:
  explicit AdvancedSubtensor(IndexSpec spec);
  const IndexSpec& spec() const { return spec_; }

  std::string name() const override { return "AdvancedSubtensor{" + spec_.str() + "}"; }
  std::string op_class() const override { return "AdvancedSubtensor"; }
  std::string user_name() const override { return "advanced_subtensor"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::vector<std::shared_ptr<Variable>> grad(
      const Node& node, const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 private:
  IndexSpec spec_;
};

}  // namespace tgc
