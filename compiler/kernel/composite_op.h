// Composite: the graph node of a fused group — one op whose outputs are a kernel's outputs,
// printed Theano-style with its scalar expressions ("Composite{add(i0,i1), sub(i0,i1)}").
// Its reference perform runs the Kernel IR interpreter; compiled backends render the kernel.
#pragma once

#include <string>
#include <vector>

#include "compiler/kernel/kernel_ir.h"
#include "compiler/kernel/lower.h"
#include "ops/core/op.h"

namespace tgc {

class Composite : public Op {
 public:
  explicit Composite(Kernel kernel);
  const Kernel& kernel() const { return kernel_; }

  std::string name() const override;  // "Composite{" + kernel.expression_str() + "}"
  std::string op_class() const override { return "Composite"; }
  std::string user_name() const override { return "fused elementwise"; }
  // The fused calls in the inputs' names, so run-time errors read like the user's code:
  // "c = add(a, b)" rather than "c = fused elementwise(a, b)".
  std::string describe_call(const std::vector<std::string>& input_labels) const override {
    return kernel_.expression_str(&input_labels, ", ");
  }
  int num_outputs() const override { return static_cast<int>(kernel_.outputs.size()); }

  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // Kernels are built after differentiation; asking for a gradient is an InternalError.
  std::vector<VarPtr> grad(const Node& node, const std::vector<VarPtr>& output_grads) const override;
  bool equals(const Op& other) const override;  // same kernel
  size_t hash() const override;                 // the kernel's hash

 private:
  Kernel kernel_;
};

// Lowers `group` and builds its Composite node over the group's (non-folded) inputs.
// Returns the replacement of each group output, in order, typed as the output it replaces.
std::vector<VarPtr> make_composite(const FusedGroup& group);

}  // namespace tgc
