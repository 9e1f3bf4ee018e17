// The Var core: symbolic constructors, constants and shared variables.
#include <tgc/var.h>

#include "ops/core/shared_value_lock.h"
#include "runtime/rank_limit.h"

namespace tgc {

DType floatX() { return global_config().floatX; }

namespace {
Var make_input(const std::string& name, std::optional<DType> dtype, int ndim) {
  return Var(Variable::input(Type::unknown(dtype.value_or(floatX()), ndim), name));
}
}  // namespace

Var scalar(const std::string& name, std::optional<DType> dtype) { return make_input(name, dtype, 0); }
Var vector(const std::string& name, std::optional<DType> dtype) { return make_input(name, dtype, 1); }
Var matrix(const std::string& name, std::optional<DType> dtype) { return make_input(name, dtype, 2); }
Var tensor3(const std::string& name, std::optional<DType> dtype) { return make_input(name, dtype, 3); }
Var tensor4(const std::string& name, std::optional<DType> dtype) { return make_input(name, dtype, 4); }

Var tensor(const std::string& name, DType dtype, std::vector<int64_t> shape) {
  check_rank(static_cast<int64_t>(shape.size()), "tensor '" + name + "'");
  for (int64_t d : shape)
    if (d < kUnknownDim)
      throw ShapeError("tensor(): dimension " + std::to_string(d) + " is invalid", "tensor '" + name + "'",
                       "give each dimension as a size >= 0, or -1 for unknown");
  return Var(Variable::input(Type(dtype, std::move(shape)), name));
}

Var constant(const Tensor& value, const std::string& name) {
  if (value.defined()) check_rank(value.ndim(), name.empty() ? "constant" : "constant '" + name + "'");
  return Var(Variable::constant(value, name));
}

Var constant(double value, DType dtype) {
  return Var(Variable::constant(Tensor::full(dtype, {}, value)));
}

Shared shared(const Tensor& value, const std::string& name, bool borrow) {
  if (!value.defined())
    throw TypeError("shared(): the initial value is an undefined Tensor", "shared variable '" + name + "'",
                    "pass a Tensor, e.g. RandomState(22).rand({230400}).astype(DType::Float32)");
  check_rank(value.ndim(), "shared variable '" + name + "'");
  return Shared(Variable::shared(make_shared_value(value, name, borrow)));
}

Tensor Shared::get_value(bool borrow) const { return ptr()->storage()->get_value(borrow); }
void Shared::set_value(const Tensor& value, bool borrow) const { ptr()->storage()->set_value(value, borrow); }

const VarPtr& checked_ptr(const Var& x) {
  if (!x.defined())
    throw TypeError("an undefined Var was used", "", "a default-constructed Var holds no expression; assign one first");
  return x.ptr();
}

std::vector<VarPtr> to_ptrs(const std::vector<Var>& vars) {
  std::vector<VarPtr> out;
  out.reserve(vars.size());
  for (const Var& v : vars) out.push_back(checked_ptr(v));
  return out;
}

}  // namespace tgc
