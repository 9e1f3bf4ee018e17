// Frontend API: ifelse, over the IfElse op (ops/control/ifelse.h).
#include <tgc/ifelse.h>

#include "ops/control/ifelse.h"

namespace tgc {

Var ifelse(const Var& cond, const Var& a, const Var& b) {
  return Var(make_ifelse(checked_ptr(cond), {checked_ptr(a)}, {checked_ptr(b)})[0]);
}

std::vector<Var> ifelse(const Var& cond, const std::vector<Var>& then_vars, const std::vector<Var>& else_vars) {
  std::vector<Var> out;
  for (VarPtr& v : make_ifelse(checked_ptr(cond), to_ptrs(then_vars), to_ptrs(else_vars))) out.emplace_back(std::move(v));
  return out;
}

}  // namespace tgc
