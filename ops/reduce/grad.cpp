// Gradient rules of the reduce family: CAReduce (sum, prod, max, min; all/any have none),
// Mean, and Argmax/Argmin (integer results: no gradient).
#include <memory>

#include "ops/core/apply.h"
#include "ops/core/node.h"
#include "ops/gradient/build.h"
#include "ops/reduce/arg_reduce.h"
#include "ops/reduce/careduce.h"
#include "ops/reduce/mean.h"
#include "ops/reduce/reduce_grad.h"

namespace tgc {
namespace {

using gradient::ew;
using gradient::mul;
using gradient::scalar_like;

// d prod / d x_i = the product of the other elements of x_i's reduction, computed without
// dividing by zero: with z = (x == 0), n = the number of zeros and p = the product of the
// non-zero elements (each per output element),
//   no zero:        p / x_i for every element;
//   exactly one:    p for the zero element, 0 for the others (their products hold the zero);
//   two or more:    0 everywhere.
// So the rule is exact for any number of zeros (up to the rounding of p / x_i).
VarPtr prod_partials(const VarPtr& x, const ReduceAxes& axes) {
  VarPtr zero = ew(ScalarOpKind::Eq, {x, scalar_like(0.0, x)});
  VarPtr x_nz = ew(ScalarOpKind::Where, {zero, scalar_like(1.0, x), x});
  VarPtr p = apply1(std::make_shared<CAReduce>(ReduceKind::Prod, axes, true), {x_nz});
  VarPtr n = apply1(std::make_shared<CAReduce>(ReduceKind::Sum, axes, true), {zero});  // int64
  VarPtr none = ew(ScalarOpKind::Eq, {n, scalar_like(0.0, n)});
  VarPtr one = ew(ScalarOpKind::Eq, {n, scalar_like(1.0, n)});
  VarPtr zero_x = scalar_like(0.0, x);
  VarPtr at_zero = ew(ScalarOpKind::Where, {one, p, zero_x});
  VarPtr at_nonzero = ew(ScalarOpKind::Where, {none, gradient::div(p, x_nz), zero_x});
  return ew(ScalarOpKind::Where, {zero, at_zero, at_nonzero});
}

}  // namespace

std::vector<VarPtr> CAReduce::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  const VarPtr& x = node.inputs().at(0);
  const VarPtr& g = output_grads.at(0);
  // all/any give bool, and integer inputs are not differentiable.
  if (!g || kind_ == ReduceKind::All || kind_ == ReduceKind::Any || !is_float(x->type().dtype)) return {nullptr};
  const int ndim = x->type().ndim();
  VarPtr gk = reduce_grad::keepdims_form(g, axes_, ndim, keepdims_);
  switch (kind_) {
    case ReduceKind::Sum: return {reduce_grad::broadcast_like(gk, x)};
    case ReduceKind::Prod: return {gradient::cast(mul(gk, prod_partials(x, axes_)), x->type().dtype)};
    case ReduceKind::Max:
    case ReduceKind::Min: {
      // The gradient goes to every element equal to the result: all tied elements get the
      // whole of g (Theano's rule), and a NaN result (NaN != NaN) passes none.
      VarPtr y = reduce_grad::keepdims_form(node.output(0), axes_, ndim, keepdims_);
      VarPtr hit = ew(ScalarOpKind::Eq, {x, y});
      return {gradient::cast(mul(gk, hit), x->type().dtype)};
    }
    case ReduceKind::All:
    case ReduceKind::Any: break;
  }
  return {nullptr};
}

std::vector<VarPtr> Mean::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  const VarPtr& x = node.inputs().at(0);
  const VarPtr& g = output_grads.at(0);
  if (!g || !is_float(x->type().dtype)) return {nullptr};
  VarPtr gk = reduce_grad::keepdims_form(g, axes(), x->type().ndim(), keepdims());
  // Dividing before broadcasting touches one element per output rather than every input.
  VarPtr count = reduce_grad::reduced_count(x, axes(), x->type().dtype);
  return {reduce_grad::broadcast_like(gradient::div(gradient::cast(gk, x->type().dtype), count), x)};
}

std::vector<VarPtr> ArgReduce::grad(const Node&, const std::vector<VarPtr>&) const {
  return {nullptr};  // an index does not change with small changes of x
}

}  // namespace tgc
