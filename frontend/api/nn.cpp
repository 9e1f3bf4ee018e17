// Frontend API: softmax and log_softmax.
#include <tgc/nn.h>

#include <memory>

#include "ops/core/apply.h"
#include "ops/nn/softmax.h"
#include "ops/reduce/reduce_axes.h"

namespace tgc {
namespace {

Var make_softmax(const Var& x, int axis, bool log) {
  VarPtr p = to_ptrs({x})[0];
  const std::string what = log ? "log_softmax" : "softmax";
  int canon;
  try {
    canon = normalize_reduce_axis(axis, p->type().ndim(), what);
  } catch (Error& e) {
    e.set_where_if_empty(what + "(" + p->label() + ")");
    throw;
  }
  return Var(apply1(std::make_shared<Softmax>(canon, log, floatX()), {p}));
}

}  // namespace

Var softmax(const Var& x, int axis) { return make_softmax(x, axis, false); }
Var log_softmax(const Var& x, int axis) { return make_softmax(x, axis, true); }

}  // namespace tgc
