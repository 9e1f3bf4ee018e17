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
  // `inplace`: per output, the input whose buffer it is written into, or -1 (empty: none).
  explicit Composite(Kernel kernel, std::vector<int> inplace = {});
  const Kernel& kernel() const { return kernel_; }
  // Per output, the input it overwrites or -1 (what backends hand to ensure_output_inplace).
  const std::vector<int>& inplace_map() const { return inplace_; }

  // "Composite{" + kernel.expression_str() + "}", plus "{inplace=[o0<-i1]}" for a variant
  // writing output 0 into input 1's buffer.
  std::string name() const override;
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
  bool equals(const Op& other) const override;  // same kernel, same inplace outputs
  size_t hash() const override;                 // the kernel's hash (and the inplace map's)

  // An output may overwrite an input of its dtype and of the loop space's full rank that
  // it reads: every element of such an input is loaded once, at the index the output
  // writes, and the output's store depends on that load, so it follows it in any order a
  // renderer or its compiler picks; the other outputs read the loaded value. Several
  // outputs may each overwrite an input, one input per output. Refused for reduction
  // kernels (the loop space is wider than the outputs), for an input the output does not
  // read (another output could load it after the store), for inputs another output already
  // overwrites, and for kernels that can raise (integer //, %, **): the backend re-runs the
  // interpreter on the inputs to word the error. Whether the input broadcasts at run time
  // is checked when the op runs (ensure_output_inplace: a fresh buffer then).
  std::shared_ptr<const Op> make_inplace(int output, int input) const override;
  int inplace_input(int output) const override {
    return output >= 0 && output < static_cast<int>(inplace_.size()) ? inplace_[output] : -1;
  }

 private:
  Kernel kernel_;
  std::vector<int> inplace_;  // one entry per output, -1 where none; empty when no output is
};

// Lowers `group` and builds its Composite node over the group's (non-folded) inputs.
// Returns the replacement of each group output, in order, typed as the output it replaces.
std::vector<VarPtr> make_composite(const FusedGroup& group);

}  // namespace tgc
