// IfElse: Theano's lazy ifelse over several values at once. Inputs (cond, then_1..then_n,
// else_1..else_n), outputs n; output i is then_i when the scalar cond is nonzero, else else_i.
// Only the taken branch needs computing: the linker guards the thunks only the untaken branch
// needs (compiler/branch_guards.h) and the executor skips them.
#pragma once

#include "ops/core/op.h"
#include "ops/core/variable.h"
#include "runtime/condition.h"

namespace tgc {

class IfElse : public Op {
 public:
  explicit IfElse(int n) : n_(n) {}
  int size() const { return n_; }

  std::string name() const override;
  std::string op_class() const override { return "IfElse"; }
  int num_outputs() const override { return n_; }
  std::string user_name() const override { return "ifelse"; }
  // then_i and else_i agree in dtype and rank; the output's static dims are those both
  // branches agree on (the meet of their broadcastable flags); cond is a scalar.
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  // The shapes when both branches have the same ones; otherwise they depend on the condition's
  // value, which shapes alone do not know: ShapeError (callers then leave the node to run time).
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  // Hands the taken branch's tensors on (views: nothing is copied). The untaken branch's
  // inputs may be undefined (skipped by the executor).
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // Nothing to raise before running: the taken branch raised already if it had to.
  void validate(const std::vector<Tensor>& /*inputs*/) const override {}
  // Output i shares the buffer of then_i or else_i; the linker's buffer lifetimes treat both
  // as shared (compiler/buffer_lifetimes.cpp), this names the first.
  int view_of_input(int output) const override { return 1 + output; }
  // The output gradient flows to the taken branch, zeros to the other (each through an IfElse on
  // the same condition); the condition gets none. The backward work itself is not lazy, as in
  // Theano (docs/control-flow.md).
  std::vector<VarPtr> grad(const Node& node, const std::vector<VarPtr>& output_grads) const override;

  // Whether the then branch is taken for these inputs (perform's choice).
  bool taken(const std::vector<Tensor>& inputs) const;

  // Input positions.
  static constexpr int kCond = 0;
  int then_input(int i) const { return 1 + i; }
  int else_input(int i) const { return 1 + n_ + i; }

 private:
  int n_;
};

// Builds ifelse(cond, then, else) for n pairs, checking what IfElse's type rule checks but
// naming the user's variables and the pair that disagrees, with a hint.
std::vector<VarPtr> make_ifelse(const VarPtr& cond, const std::vector<VarPtr>& then_vars,
                                const std::vector<VarPtr>& else_vars);

}  // namespace tgc
