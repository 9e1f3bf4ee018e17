// The .tg evaluator: runs a module's assignments, building graphs through the builtins and
// the C++ API, binding names and compiling functions into the Context's program. Every
// error becomes a SourceError at the expression that caused it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "frontend/lang/ast.h"
#include "frontend/lang/context.h"
#include "frontend/lang/value.h"

namespace tgc::lang {

class Evaluator {
 public:
  explicit Evaluator(Context& ctx);

  // Runs every statement in order.
  void run(const Module& module);
  // The value of one expression; `bound_name` is the name a call's result is assigned to.
  Value eval(const Expr& e, const std::string& bound_name = "");

 private:
  void assign(const Expr& target, const Value& v);
  Value name(const Expr& e);
  Value unary(const Expr& e);
  Value binary(const Expr& e);
  // One binary operation of e (a Binary node) on its operands' values.
  Value apply_binary(const Expr& e, const Value& a, const Value& b);
  Value call(const Expr& e, const std::string& bound_name);
  Value attribute(const Expr& e);
  Value subscript(const Expr& e);
  Value sequence(const Expr& e);
  Value comprehension(const Expr& e);
  Value sequence_slice(const Value& target, const Expr& slice);
  // Binds the parameters (shadowing names of the program while the body is evaluated).
  Value call_lambda(const Lambda& fn, const std::vector<Value>& args, Pos pos);
  // A list (or tuple) of these items, checked against the nesting limit (errors at `pos`).
  Value nested_sequence(std::vector<Value> items, bool tuple, Pos pos) const;
  int lambda_depth_ = 0;

  // Names a lambda's parameters or a comprehension's loop variables shadow while it runs:
  // their bindings are restored (or removed) when it ends, by return or by exception.
  class Shadowed {
   public:
    Shadowed(std::map<std::string, Value>& names, const std::vector<std::string>& shadowed);
    ~Shadowed();
    Shadowed(const Shadowed&) = delete;
    Shadowed& operator=(const Shadowed&) = delete;

   private:
    std::map<std::string, Value>& names_;
    std::vector<std::pair<std::string, std::optional<Value>>> saved_;
  };

  Context& ctx_;
  std::map<std::string, Value> names_;
};

// The names every .tg file starts with (pi, inf, nan, newaxis, floatX), for the evaluator
// and the reference.
const std::map<std::string, std::string>& predefined_names();

}  // namespace tgc::lang
