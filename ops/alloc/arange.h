// Arange{start, stop, step, dtype}: NumPy's arange with static bounds — ceil((stop -
// start) / step) values start, start + step, ... computed the way NumPy fills them.
#pragma once

#include "ops/core/op.h"

namespace tgc {

class Arange : public Op {
 public:
  Arange(double start, double stop, double step, DType dtype)
      : start_(start), stop_(stop), step_(step), dtype_(dtype) {}

  std::string name() const override;  // "Arange{start=0, stop=10, step=3, dtype=int64}"
  std::string op_class() const override { return "Arange"; }
  std::string user_name() const override { return "arange"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::vector<std::shared_ptr<Variable>> grad(
      const Node& node, const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

  // The number of values; throws ValueError for a zero step or a bool dtype.
  int64_t length() const;
  double start() const { return start_; }
  double stop() const { return stop_; }
  double step() const { return step_; }
  DType dtype() const { return dtype_; }

 private:
  double start_, stop_, step_;
  DType dtype_;
};

}  // namespace tgc
