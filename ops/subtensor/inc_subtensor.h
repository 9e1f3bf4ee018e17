// IncSubtensor{Set|Inc}: a copy of x with x[index] replaced by, or incremented by, a value
// broadcast to the indexed shape — Theano's set_subtensor / inc_subtensor, for basic and
// advanced index descriptions. Advanced increments accumulate repeated indices (like
// np.add.at); advanced sets with repeated indices keep the last value.
#pragma once

#include "ops/core/op.h"
#include "ops/subtensor/index_spec.h"

namespace tgc {

class IncSubtensor : public Op {
 public:
  enum class Mode { Set, Inc };
  IncSubtensor(Mode mode, IndexSpec spec) : mode_(mode), spec_(std::move(spec)) {}
  Mode mode() const { return mode_; }
  const IndexSpec& spec() const { return spec_; }

  // Inputs: {x, value, index arrays in entry order}.
  std::string name() const override;  // "IncSubtensor{Set;1, ::2}", "IncSubtensor{Inc;array}"
  std::string op_class() const override { return "IncSubtensor"; }
  std::string user_name() const override { return mode_ == Mode::Set ? "set_subtensor" : "inc_subtensor"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::vector<std::shared_ptr<Variable>> grad(
      const Node& node, const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 private:
  Mode mode_;
  IndexSpec spec_;
};

}  // namespace tgc
