// Frontend API: softmax and log_softmax.
#include <tgc/nn.h>

#include <memory>

#include "frontend/api/call_site.h"
#include "ops/core/apply.h"
#include "ops/nn/softmax.h"
#include "ops/reduce/reduce_axes.h"

namespace tgc {
namespace {

Var make_softmax(const Var& x, int axis, bool log) {
  const VarPtr& p = checked_ptr(x);
  const std::string what = log ? "log_softmax" : "softmax";
  const int canon =
      at_call(what + "(" + p->label() + ")", [&] { return normalize_reduce_axis(axis, p->type().ndim(), what); });
  return Var(apply1(std::make_shared<Softmax>(canon, log, floatX()), {p}));
}

}  // namespace

Var softmax(const Var& x, int axis) { return make_softmax(x, axis, false); }
Var log_softmax(const Var& x, int axis) { return make_softmax(x, axis, true); }

}  // namespace tgc
