// Frontend API: grad, stop_gradient, Lop, jacobian and hessian over compiler/grad.
#include <fmt/format.h>
#include <tgc/grad.h>
#include <tgc/join.h>

#include "ops/core/apply.h"
#include "ops/gradient/stop_gradient.h"
#include "runtime/error.h"

namespace tgc {

namespace {

std::vector<Var> to_vars(const std::vector<VarPtr>& ptrs) {
  std::vector<Var> out;
  out.reserve(ptrs.size());
  for (const VarPtr& p : ptrs) out.emplace_back(p);
  return out;
}

// The rows d y[i] / d x for a vector y of length n, stacked: each row is the gradient of
// the one-hot projection of y (known_grads), so no indexing op is needed.
Var jacobian_rows(const VarPtr& y, const VarPtr& x, int64_t n, GradOptions options) {
  if (n == 0)
    throw ShapeError("jacobian: y has no elements", "jacobian()", "y must have at least one element");
  const size_t base = options.known_grads.size();
  options.known_grads.emplace_back();
  std::vector<Var> rows;
  for (int64_t i = 0; i < n; ++i) {
    Tensor onehot = Tensor::zeros(y->type().dtype, Shape{n});
    Tensor one = Tensor::full(y->type().dtype, Shape{1}, 1.0);
    copy_elements(one, onehot.view(Shape{1}, Strides{1}, i));
    options.known_grads[base] = {y, Variable::constant(onehot)};
    rows.emplace_back(grad(nullptr, {x}, options)[0]);
  }
  return stack(rows, 0);
}

}  // namespace

std::vector<Var> grad(const Var& cost, const std::vector<Var>& wrt, const GradOptions& options) {
  return to_vars(grad(checked_ptr(cost), to_ptrs(wrt), options));
}

Var grad(const Var& cost, const Var& wrt, const GradOptions& options) {
  return grad(cost, std::vector<Var>{wrt}, options)[0];
}

Var stop_gradient(const Var& x) {
  return Var(apply1(std::make_shared<StopGradient>(), {checked_ptr(x)}));
}

std::vector<Var> Lop(const Var& f, const std::vector<Var>& wrt, const Var& v) {
  GradOptions options;
  options.known_grads.emplace_back(checked_ptr(f), checked_ptr(v));
  return to_vars(grad(nullptr, to_ptrs(wrt), options));
}

Var jacobian(const Var& y, const Var& x, const GradOptions& options) {
  const VarPtr& yp = checked_ptr(y);
  if (yp->type().ndim() == 0) return grad(y, x, options);
  if (yp->type().ndim() != 1)
    throw TypeError(fmt::format("jacobian: y must be a vector or a scalar, got {}", yp->type().str()), "jacobian()",
                    "flatten y first: jacobian(y.flatten(), x)");
  int64_t n = yp->type().shape[0];
  if (n == kUnknownDim)
    throw ShapeError(fmt::format("jacobian: the length of y ({}) is not known statically", yp->type().str()),
                     "jacobian()",
                     "jacobian builds one gradient per element: give y a static length, e.g. build it "
                     "from tensor(\"x\", DType::Float64, {3})");
  return jacobian_rows(yp, checked_ptr(x), n, options);
}

Var hessian(const Var& cost, const Var& x, const GradOptions& options) {
  const VarPtr& xp = checked_ptr(x);
  if (xp->type().ndim() != 1 || xp->type().shape[0] == kUnknownDim)
    throw ShapeError(fmt::format("hessian: x must be a vector of static length, got {}", xp->type().str()),
                     "hessian()",
                     "hessian builds one gradient per element of x: declare it with a static length, "
                     "e.g. tensor(\"x\", DType::Float64, {3})");
  Var g = grad(cost, x, options);
  // A gradient that does not depend on x has zero curvature: no disconnected error there.
  GradOptions second;
  second.consider_constant = options.consider_constant;
  second.disconnected_inputs = DisconnectedInputs::Ignore;
  return jacobian_rows(g.ptr(), xp, xp->type().shape[0], second);
}

}  // namespace tgc
