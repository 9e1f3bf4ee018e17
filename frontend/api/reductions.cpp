// Frontend API: reductions and the Var members that call them.
#include <tgc/reductions.h>

#include <memory>

#include "frontend/api/call_site.h"
#include "ops/core/apply.h"
#include "ops/nn/logsumexp.h"
#include "ops/reduce/arg_reduce.h"
#include "ops/reduce/careduce.h"
#include "ops/reduce/mean.h"

namespace tgc {
namespace {

// Canonical axes for x, with a bad axis reported as the user's call ("sum(x)").
ReduceAxes canonical_axes(const Var& x, const Axes& axes, const std::string& what) {
  const VarPtr& p = checked_ptr(x);
  return at_call(what + "(" + p->label() + ")",
                 [&] { return normalize_reduce_axes(axes.axes, p->type().ndim(), what); });
}

Var careduce(ReduceKind kind, const std::string& what, const Var& x, const Axes& axes, bool keepdims) {
  ReduceAxes canon = canonical_axes(x, axes, what);
  return Var(apply1(std::make_shared<CAReduce>(kind, std::move(canon), keepdims), {checked_ptr(x)}));
}

Var arg_reduce(ArgKind kind, const std::string& what, const Var& x, std::optional<int> axis, bool keepdims) {
  const VarPtr& p = checked_ptr(x);
  std::optional<int> canon;
  if (axis)
    canon = at_call(what + "(" + p->label() + ")",
                    [&] { return normalize_reduce_axis(*axis, p->type().ndim(), what); });
  return Var(apply1(std::make_shared<ArgReduce>(kind, canon, keepdims), {p}));
}

}  // namespace

Var sum(const Var& x, Axes axes, bool keepdims) { return careduce(ReduceKind::Sum, "sum", x, axes, keepdims); }
Var prod(const Var& x, Axes axes, bool keepdims) { return careduce(ReduceKind::Prod, "prod", x, axes, keepdims); }
Var max(const Var& x, Axes axes, bool keepdims) { return careduce(ReduceKind::Max, "max", x, axes, keepdims); }
Var min(const Var& x, Axes axes, bool keepdims) { return careduce(ReduceKind::Min, "min", x, axes, keepdims); }
Var all(const Var& x, Axes axes, bool keepdims) { return careduce(ReduceKind::All, "all", x, axes, keepdims); }
Var any(const Var& x, Axes axes, bool keepdims) { return careduce(ReduceKind::Any, "any", x, axes, keepdims); }

Var mean(const Var& x, Axes axes, bool keepdims) {
  ReduceAxes canon = canonical_axes(x, axes, "mean");
  return Var(apply1(std::make_shared<Mean>(std::move(canon), keepdims, floatX()), {checked_ptr(x)}));
}

Var argmax(const Var& x, std::optional<int> axis, bool keepdims) {
  return arg_reduce(ArgKind::Argmax, "argmax", x, axis, keepdims);
}
Var argmin(const Var& x, std::optional<int> axis, bool keepdims) {
  return arg_reduce(ArgKind::Argmin, "argmin", x, axis, keepdims);
}

Var logsumexp(const Var& x, Axes axes, bool keepdims) {
  ReduceAxes canon = canonical_axes(x, axes, "logsumexp");
  return Var(apply1(std::make_shared<LogSumExp>(std::move(canon), keepdims, floatX()), {checked_ptr(x)}));
}

Var Var::sum(Axes axes, bool keepdims) const { return tgc::sum(*this, std::move(axes), keepdims); }
Var Var::prod(Axes axes, bool keepdims) const { return tgc::prod(*this, std::move(axes), keepdims); }
Var Var::mean(Axes axes, bool keepdims) const { return tgc::mean(*this, std::move(axes), keepdims); }
Var Var::max(Axes axes, bool keepdims) const { return tgc::max(*this, std::move(axes), keepdims); }
Var Var::min(Axes axes, bool keepdims) const { return tgc::min(*this, std::move(axes), keepdims); }
Var Var::argmax(std::optional<int> axis, bool keepdims) const { return tgc::argmax(*this, axis, keepdims); }
Var Var::argmin(std::optional<int> axis, bool keepdims) const { return tgc::argmin(*this, axis, keepdims); }

}  // namespace tgc
