// IfElse: type rule (the meet of both branches), shape rule, reference evaluation, and the
// builder that reports mismatched branches in the user's names.
#include "ops/control/ifelse.h"

#include <fmt/format.h>

#include "ops/core/apply.h"
#include "runtime/error.h"

namespace tgc {

namespace {

std::string pair_label(int i, int n) { return n == 1 ? std::string() : fmt::format(" (pair {} of {})", i + 1, n); }

}  // namespace

std::string IfElse::name() const { return n_ == 1 ? "IfElse" : fmt::format("IfElse{{outputs={}}}", n_); }

std::vector<Type> IfElse::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(static_cast<int>(inputs.size()) == 1 + 2 * n_, "IfElse takes a condition and two values per output");
  if (inputs[kCond].ndim() != 0)
    throw TypeError(fmt::format("ifelse: the condition must be a scalar, got a {}", inputs[kCond].str()), "",
                    "reduce it to one value first, e.g. any(c) or sum(c) > 0");
  std::vector<Type> out;
  for (int i = 0; i < n_; ++i) {
    const Type& a = inputs[then_input(i)];
    const Type& b = inputs[else_input(i)];
    if (a.dtype != b.dtype || a.ndim() != b.ndim())
      throw TypeError(fmt::format("ifelse: the branches' values{} differ: then is a {}, else is a {}", pair_label(i, n_),
                                  a.str(), b.str()),
                      "", "both branches must give the same dtype and rank: cast one (cast(x, 'float32')) or reshape it");
    Type t = a;
    for (int d = 0; d < a.ndim(); ++d)
      if (a.shape[d] != b.shape[d]) t.shape[d] = kUnknownDim;
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<Shape> IfElse::infer_shapes(const std::vector<Shape>& inputs) const {
  TGC_INTERNAL_CHECK(static_cast<int>(inputs.size()) == 1 + 2 * n_, "IfElse takes a condition and two values per output");
  std::vector<Shape> out;
  for (int i = 0; i < n_; ++i) {
    if (inputs[then_input(i)] != inputs[else_input(i)])
      throw ShapeError("ifelse: the result's shape depends on the condition's value", "",
                       "the branches have different shapes; the one taken at run time decides");
    out.push_back(inputs[then_input(i)]);
  }
  return out;
}

// The branch taken: where the executor skipped a branch's producers (an input undefined),
// the other one (a skipped producer's guard was false, so the condition picked the other side:
// compiler/branch_guards.h); otherwise the condition's value (on a device: a copy back).
bool IfElse::taken(const std::vector<Tensor>& inputs) const {
  for (int i = 0; i < n_; ++i) {
    if (!inputs[then_input(i)].defined()) return false;
    if (!inputs[else_input(i)].defined()) return true;
  }
  return condition_holds(inputs[kCond]);
}

void IfElse::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const bool taken = this->taken(inputs);
  for (int i = 0; i < n_; ++i) {
    const Tensor& v = inputs[taken ? then_input(i) : else_input(i)];
    TGC_INTERNAL_CHECK(v.defined(), "ifelse: the taken branch's value was not computed");
    outputs[i] = v;
  }
}

std::vector<VarPtr> make_ifelse(const VarPtr& cond, const std::vector<VarPtr>& then_vars,
                                const std::vector<VarPtr>& else_vars) {
  const int n = static_cast<int>(then_vars.size());
  if (n == 0) throw TypeError("ifelse: no values to choose between", "ifelse", "give one value per branch, or lists of equal length");
  if (else_vars.size() != then_vars.size())
    throw TypeError(fmt::format("ifelse: the then branch has {} values, the else branch {}", n, else_vars.size()),
                    "ifelse", "give both branches the same number of values, pairing each then value with its else value");
  if (cond->type().ndim() != 0)
    throw TypeError(fmt::format("ifelse: the condition '{}' must be a scalar, got a {}", cond->label(), cond->type().str()),
                    "ifelse", "reduce it to one value first, e.g. any(c) or sum(c) > 0");
  for (int i = 0; i < n; ++i) {
    const Type& a = then_vars[i]->type();
    const Type& b = else_vars[i]->type();
    if (a.dtype == b.dtype && a.ndim() == b.ndim()) continue;
    const bool dtype = a.dtype != b.dtype;
    throw TypeError(
        fmt::format("ifelse: '{}' (then) is a {} but '{}' (else) is a {}{}: they differ in {}", then_vars[i]->label(),
                    a.str(), else_vars[i]->label(), b.str(), pair_label(i, n), dtype ? "dtype" : "rank"),
        fmt::format("ifelse({}, {}, {})", cond->label(), then_vars[i]->label(), else_vars[i]->label()),
        dtype ? fmt::format("cast one to the other's dtype, e.g. cast({}, '{}')", else_vars[i]->label(), dtype_name(a.dtype))
              : "give both the same rank (reshape, dimshuffle or a broadcast against the other)");
  }
  std::vector<VarPtr> inputs{cond};
  inputs.insert(inputs.end(), then_vars.begin(), then_vars.end());
  inputs.insert(inputs.end(), else_vars.begin(), else_vars.end());
  return tgc::apply(std::make_shared<IfElse>(n), std::move(inputs));
}

}  // namespace tgc
