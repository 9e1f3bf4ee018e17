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
  // `inplace`: the output is written into x's buffer (only the indexed elements change), made
  // by make_inplace() for the inplace pass.
  IncSubtensor(Mode mode, IndexSpec spec, bool inplace = false)
      : mode_(mode), spec_(std::move(spec)), inplace_(inplace) {}
  Mode mode() const { return mode_; }
  const IndexSpec& spec() const { return spec_; }
  bool inplace() const { return inplace_; }

  // Inputs: {x, value, index arrays in entry order}.
  // "IncSubtensor{Set;1, ::2}", "IncSubtensor{Inc;array}", "IncSubtensor{Inc;array;inplace}".
  std::string name() const override;
  std::string op_class() const override { return "IncSubtensor"; }
  std::string user_name() const override { return mode_ == Mode::Set ? "set_subtensor" : "inc_subtensor"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // The value's broadcast and, for index arrays on the host, every index (what perform()
  // raises), without writing anything.
  void validate(const std::vector<Tensor>& inputs) const override;
  std::vector<std::shared_ptr<Variable>> grad(
      const Node& node, const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

  // x may be overwritten (output 0 into input 0): perform() then skips the copy of x and
  // writes only the indexed elements. The value and the index arrays must not share x's
  // buffer (ensure_output_inplace() allocates when they do).
  std::shared_ptr<const Op> make_inplace(int output, int input) const override;
  int inplace_input(int output) const override { return output == 0 && inplace_ ? 0 : -1; }

 private:
  Mode mode_;
  IndexSpec spec_;
  bool inplace_;
};

}  // namespace tgc
