// Small ops for testing the graph core, the linker and the executor without depending on
// the real op families.
#pragma once

#include <memory>
#include <string>

#include "ops/core/apply.h"
#include "ops/core/op.h"
#include "ops/core/variable.h"

namespace tgc::testing {

// y = x + c, elementwise on float64; throws ValueError when it meets a negative element
// (an op that can fail in the middle of a call). The constant is part of the name.
class AddConst final : public Op {
 public:
  explicit AddConst(double c) : c_(c) {}
  double value() const { return c_; }
  std::string name() const override { return "AddConst{" + std::to_string(c_) + "}"; }
  std::string op_class() const override { return "AddConst"; }
  std::string user_name() const override { return "add_const"; }
  std::vector<Type> infer_types(const std::vector<Type>& in) const override {
    if (in.size() != 1 || in[0].dtype != DType::Float64)
      throw TypeError("add_const: expected one float64 input");
    return {in[0]};
  }
  std::vector<Shape> infer_shapes(const std::vector<Shape>& in) const override { return {in[0]}; }
  void perform(const std::vector<Tensor>& in, std::vector<Tensor>& out) const override {
    Tensor x = in[0].contiguous();
    Tensor& y = ensure_output(out[0], DType::Float64, x.shape());
    const double* px = x.data<double>();
    double* py = y.data<double>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      if (px[i] < 0) throw ValueError("add_const: negative element " + std::to_string(px[i]));
      py[i] = px[i] + c_;
    }
  }

 private:
  double c_;
};

// x + c as a node of the graph, its output named `name` when one is given (the graph tests'
// schedules and guards are read by these names).
inline VarPtr add_const(const VarPtr& x, double c, const std::string& name = "") {
  VarPtr v = apply1(std::make_shared<AddConst>(c), {x});
  if (!name.empty()) v->set_name(name);
  return v;
}

}  // namespace tgc::testing
