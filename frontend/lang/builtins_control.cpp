// The .tg builtins of control flow (tgc/ifelse.h; docs/control-flow.md): ifelse(c, a, b) for
// one value, ifelse(c, [a1, a2], [b1, b2]) for several, which returns a tuple.
#include <fmt/format.h>

#include <tgc/ifelse.h>

#include "frontend/lang/builtins.h"

namespace tgc::lang {

namespace {

Value ifelse_(Args& a) {
  const bool then_many = a.value("a").is_sequence();
  const bool else_many = a.value("b").is_sequence();
  if (then_many != else_many)
    a.fail(then_many ? "b" : "a",
           fmt::format("ifelse: one branch is a list of values and the other {}", a.value(then_many ? "b" : "a").describe()),
           "give both branches one value each, or lists of the same length: ifelse(c, [a1, a2], [b1, b2])");
  const Var cond = a.var("cond");
  if (!then_many) return ifelse(cond, a.var("a"), a.var("b"));
  std::vector<Value> out;
  for (Var& v : ifelse(cond, a.vars("a"), a.vars("b"))) out.emplace_back(std::move(v));
  return Value::tuple(std::move(out));
}

}  // namespace

std::vector<BuiltinRow> control_builtins() {
  return {
      {"ifelse", "cond, a, b",
       "a if the scalar cond is nonzero, else b, computing only the branch taken (lazy; where() is the eager "
       "elementwise choice); lists a and b give a tuple",
       ifelse_},
  };
}

}  // namespace tgc::lang
