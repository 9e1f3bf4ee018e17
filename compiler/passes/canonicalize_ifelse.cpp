// The canonicalize rules for lazy ifelse: a condition known when compiling picks its branch
// (nothing is left to be lazy about), and an ifelse whose branches are one value is that value.
#include "compiler/passes/canonicalize_rules.h"
#include "ops/control/ifelse.h"

namespace tgc::canon {

namespace {

const IfElse* ifelse_op(const Node& n) { return dynamic_cast<const IfElse*>(&n.op()); }

}  // namespace

std::vector<VarPtr> ifelse_constant_condition(Node& n, const RewriteEnv&) {
  const IfElse* op = ifelse_op(n);
  if (!op) return {};
  const Variable& cond = *n.inputs()[IfElse::kCond];
  if (cond.kind() != Variable::Kind::Constant || cond.constant_value().numel() != 1) return {};
  const bool taken = condition_holds(cond.constant_value());
  std::vector<VarPtr> out;
  for (int i = 0; i < op->size(); ++i) out.push_back(n.inputs()[taken ? op->then_input(i) : op->else_input(i)]);
  return out;
}

std::vector<VarPtr> ifelse_same_branches(Node& n, const RewriteEnv&) {
  const IfElse* op = ifelse_op(n);
  if (!op) return {};
  // The pairs that differ stay in a smaller IfElse (the node itself must go, or the rule
  // would match it again); equal pairs are their value.
  std::vector<VarPtr> then_vars, else_vars;
  for (int i = 0; i < op->size(); ++i)
    if (n.inputs()[op->then_input(i)] != n.inputs()[op->else_input(i)]) {
      then_vars.push_back(n.inputs()[op->then_input(i)]);
      else_vars.push_back(n.inputs()[op->else_input(i)]);
    }
  if (static_cast<int>(then_vars.size()) == op->size()) return {};
  std::vector<VarPtr> rest;
  if (!then_vars.empty()) rest = make_ifelse(n.inputs()[IfElse::kCond], then_vars, else_vars);
  std::vector<VarPtr> out;
  size_t k = 0;
  for (int i = 0; i < op->size(); ++i)
    out.push_back(n.inputs()[op->then_input(i)] == n.inputs()[op->else_input(i)] ? n.inputs()[op->then_input(i)]
                                                                                   : rest[k++]);
  return out;
}

}  // namespace tgc::canon
