// The stabilize rule table. Every rule keeps its node's dtype: where a constant made the
// node wider than its argument (float32 x, float64 1), the argument is cast up first so the
// replacement computes in the same precision as the original.
#include "compiler/passes/stabilize.h"

#include <memory>
#include <optional>
#include <unordered_set>
#include <utility>

#include "compiler/passes/stabilize_patterns.h"
#include "compiler/passes/stable_forms.h"
#include "ops/core/apply.h"
#include "ops/nn/logsumexp.h"
#include "ops/nn/softmax.h"
#include "ops/reduce/careduce.h"

namespace tgc {

namespace {

using namespace stabilize_patterns;
using K = ScalarOpKind;
using Rewrite = std::vector<VarPtr>;

DType out_dtype(const Node& node) { return node.output_raw(0)->type().dtype; }

// The node's single input when the node is a float-valued Elemwise of `kind`.
const VarPtr* float_unary(const Node& node, ScalarOpKind kind) {
  auto* e = dynamic_cast<const Elemwise*>(&node.op());
  if (!e || e->kind() != kind || !is_float(out_dtype(node))) return nullptr;
  return &node.inputs()[0];
}

// -x in dtype t: negated first when x is a float (so negate() can simplify x's own form),
// cast first when it is an integer (no wrap-around at the type's minimum).
VarPtr negated_as(const Builder& b, const VarPtr& x, DType t) {
  return is_float(x->type().dtype) ? b.cast(b.negate(x), t) : b.negate(b.cast(x, t));
}

// Whether a log reads v through at least one other elementwise op (log(clip(v, a, b)),
// log(v * c), ...), within a few steps. A log reading v directly is log1m_sigmoid's case.
bool under_log(const Variable* v, const GraphEditor& graph) {
  constexpr int kMaxDepth = 3;
  std::vector<std::pair<const Variable*, int>> frontier{{v, 0}};
  std::unordered_set<const Node*> seen;
  while (!frontier.empty()) {
    auto [u, depth] = frontier.back();
    frontier.pop_back();
    for (const auto& [reader, pos] : graph.clients(u)) {
      auto* e = dynamic_cast<const Elemwise*>(&reader->op());
      if (!e || !seen.insert(reader).second) continue;
      if (e->kind() == K::Log || e->kind() == K::Log1p) {
        if (depth > 0) return true;
      } else if (depth < kMaxDepth) {
        frontier.push_back({reader->output_raw(0), depth + 1});
      }
    }
  }
  return false;
}

// 1 / (1 + exp(t)) -> sigmoid(-t); also exp(t) + 1 and (1 + exp(t)) ** -1.
Rewrite sigmoid_of_exp(Node& node, const RewriteEnv&) {
  VarPtr d = reciprocal_of(node);
  VarPtr e = d && is_float(out_dtype(node)) ? one_plus(d.get()) : nullptr;
  if (!e || !elemwise_of(e.get(), K::Exp)) return {};
  Builder b(floatx_of(node));
  return replace_with(node, b.ew(K::Sigmoid, {negated_as(b, arg(e.get(), 0), out_dtype(node))}));
}

// log(sigmoid(x)) -> -softplus(-x)
Rewrite log_sigmoid(Node& node, const RewriteEnv&) {
  const VarPtr* s = float_unary(node, K::Log);
  if (!s || !elemwise_of(s->get(), K::Sigmoid)) return {};
  Builder b(floatx_of(node));
  VarPtr x = negated_as(b, arg(s->get(), 0), out_dtype(node));
  return replace_with(node, b.ew(K::Neg, {b.ew(K::Softplus, {x})}));
}

// log(1 - sigmoid(x)) -> -softplus(x)
Rewrite log1m_sigmoid(Node& node, const RewriteEnv&) {
  const VarPtr* in = float_unary(node, K::Log);
  VarPtr s = in ? one_minus(in->get()) : nullptr;
  if (!s || !elemwise_of(s.get(), K::Sigmoid)) return {};
  Builder b(floatx_of(node));
  VarPtr x = b.cast(arg(s.get(), 0), out_dtype(node));
  return replace_with(node, b.ew(K::Neg, {b.ew(K::Softplus, {x})}));
}

// 1 - sigmoid(x) -> sigmoid(-x) when a log reads it through other elementwise ops: there
// 1 - sigmoid(x) rounds to 0 for large x where sigmoid(-x) keeps its digits.
Rewrite one_minus_sigmoid(Node& node, const RewriteEnv& env) {
  const Variable* v = node.output_raw(0);
  VarPtr s = is_float(out_dtype(node)) ? one_minus(v) : nullptr;
  if (!s || !elemwise_of(s.get(), K::Sigmoid) || !under_log(v, env.graph)) return {};
  Builder b(floatx_of(node));
  return replace_with(node, b.ew(K::Sigmoid, {negated_as(b, arg(s.get(), 0), out_dtype(node))}));
}

// log(softmax(x)) -> log_softmax(x)
Rewrite log_of_softmax(Node& node, const RewriteEnv&) {
  const VarPtr* in = float_unary(node, K::Log);
  if (!in || !(*in)->owner()) return {};
  auto* sm = dynamic_cast<const Softmax*>(&(*in)->owner()->op());
  if (!sm || sm->log()) return {};
  auto op = std::make_shared<Softmax>(sm->axis(), /*log=*/true, floatx_of(node));
  return replace_with(node, apply1(op, {arg(in->get(), 0)}));
}

// log(sum(exp(x), axes)) -> logsumexp(x, axes), keepdims kept
Rewrite log_sum_exp(Node& node, const RewriteEnv&) {
  const VarPtr* in = float_unary(node, K::Log);
  if (!in || !(*in)->owner()) return {};
  auto* sum = dynamic_cast<const CAReduce*>(&(*in)->owner()->op());
  if (!sum || sum->kind() != ReduceKind::Sum) return {};
  const VarPtr& e = arg(in->get(), 0);
  const Elemwise* exp = elemwise_of(e.get(), K::Exp);
  if (!exp) return {};
  auto op = std::make_shared<LogSumExp>(sum->axes(), sum->keepdims(), exp->floatx());
  return replace_with(node, apply1(op, {arg(e.get(), 0)}));
}

// a and b when v is exp(a) - exp(b), exp(a) + -exp(b) or -exp(b) + exp(a) (canonicalize's
// spelling of the difference).
std::optional<std::pair<VarPtr, VarPtr>> exp_difference(const Variable* v) {
  auto exp_arg = [](const VarPtr& e) { return elemwise_of(e.get(), K::Exp) ? arg(e.get(), 0) : nullptr; };
  auto neg_exp_arg = [&](const VarPtr& e) { return elemwise_of(e.get(), K::Neg) ? exp_arg(arg(e.get(), 0)) : nullptr; };
  VarPtr a, b;
  if (elemwise_of(v, K::Sub)) {
    a = exp_arg(arg(v, 0));
    b = exp_arg(arg(v, 1));
  } else if (elemwise_of(v, K::Add)) {
    for (int i = 0; i < 2 && !(a && b); ++i) {
      a = exp_arg(arg(v, i));
      b = neg_exp_arg(arg(v, 1 - i));
    }
  }
  if (!a || !b) return std::nullopt;
  return std::pair{a, b};
}

// log(exp(a) + exp(b)) -> log_add_exp(a, b); the sum is symmetric, so exp(b) + exp(a) too
Rewrite log_add_exp_rule(Node& node, const RewriteEnv&) {
  const VarPtr* in = float_unary(node, K::Log);
  if (!in || !elemwise_of(in->get(), K::Add)) return {};
  const VarPtr &ea = arg(in->get(), 0), &eb = arg(in->get(), 1);
  if (!elemwise_of(ea.get(), K::Exp) || !elemwise_of(eb.get(), K::Exp)) return {};
  const DType t = out_dtype(node);
  Builder b(floatx_of(node));
  return replace_with(node, log_add_exp(b, b.cast(arg(ea.get(), 0), t), b.cast(arg(eb.get(), 0), t), t));
}

// log(exp(a) - exp(b)) -> a + log1mexp(b - a): real where a > b, as the formula is
Rewrite log_sub_exp(Node& node, const RewriteEnv&) {
  const VarPtr* in = float_unary(node, K::Log);
  auto ab = in ? exp_difference(in->get()) : std::nullopt;
  if (!ab) return {};
  const DType t = out_dtype(node);
  Builder b(floatx_of(node));
  VarPtr a = b.cast(ab->first, t);
  return replace_with(node, b.ew(K::Add, {a, log1mexp(b, b.ew(K::Sub, {b.cast(ab->second, t), a}), t)}));
}

// log(1 - exp(x)) -> log1mexp(x); also 1 + -exp(x) and -exp(x) + 1
Rewrite log1mexp_of_log(Node& node, const RewriteEnv&) {
  const VarPtr* in = float_unary(node, K::Log);
  VarPtr e = in && is_float((*in)->type().dtype) ? one_minus(in->get()) : nullptr;
  if (!e || !elemwise_of(e.get(), K::Exp)) return {};
  Builder b(floatx_of(node));
  return replace_with(node, log1mexp(b, b.cast(arg(e.get(), 0), out_dtype(node)), out_dtype(node)));
}

// log1p(-exp(x)) -> log1mexp(x), except where it is log1mexp's own lower branch
Rewrite log1mexp_of_log1p(Node& node, const RewriteEnv& env) {
  const VarPtr* in = float_unary(node, K::Log1p);
  if (!in || !elemwise_of(in->get(), K::Neg)) return {};
  const VarPtr& e = arg(in->get(), 0);
  if (!elemwise_of(e.get(), K::Exp)) return {};
  const VarPtr& x = arg(e.get(), 0);
  if (is_log1mexp_branch(node.output_raw(0), x.get(), env.graph)) return {};
  Builder b(floatx_of(node));
  return replace_with(node, log1mexp(b, b.cast(x, out_dtype(node)), out_dtype(node)));
}

// log(1 + x) -> log1p(x)
Rewrite log1p(Node& node, const RewriteEnv&) {
  const VarPtr* in = float_unary(node, K::Log);
  VarPtr x = in && is_float((*in)->type().dtype) ? one_plus(in->get()) : nullptr;
  if (!x) return {};
  Builder b(floatx_of(node));
  return replace_with(node, b.ew(K::Log1p, {b.cast(x, out_dtype(node))}));
}

// log(1 - x) -> log1p(-x)
Rewrite log1m(Node& node, const RewriteEnv&) {
  const VarPtr* in = float_unary(node, K::Log);
  VarPtr x = in && is_float((*in)->type().dtype) ? one_minus(in->get()) : nullptr;
  if (!x) return {};
  Builder b(floatx_of(node));
  return replace_with(node, b.ew(K::Log1p, {negated_as(b, x, out_dtype(node))}));
}

// log1p(exp(x)) -> softplus(x)
Rewrite softplus(Node& node, const RewriteEnv&) {
  const VarPtr* in = float_unary(node, K::Log1p);
  if (!in || !elemwise_of(in->get(), K::Exp)) return {};
  Builder b(floatx_of(node));
  return replace_with(node, b.ew(K::Softplus, {b.cast(arg(in->get(), 0), out_dtype(node))}));
}

// exp(x) - 1 -> expm1(x)
Rewrite expm1(Node& node, const RewriteEnv&) {
  if (!is_float(out_dtype(node))) return {};
  VarPtr e = minus_one(node.output_raw(0));
  if (!e || !elemwise_of(e.get(), K::Exp)) return {};
  Builder b(floatx_of(node));
  return replace_with(node, b.ew(K::Expm1, {b.cast(arg(e.get(), 0), out_dtype(node))}));
}

// First match wins, so the sigmoid forms of log come before the general log1p ones.
constexpr LocalRewrite kRules[] = {
    {"sigmoid_of_exp", "1 / (1 + exp(-x)) -> sigmoid(x)", &sigmoid_of_exp},
    {"log_sigmoid", "log(sigmoid(x)) -> -softplus(-x)", &log_sigmoid},
    {"log1m_sigmoid", "log(1 - sigmoid(x)) -> -softplus(x)", &log1m_sigmoid},
    {"one_minus_sigmoid", "log(clip(1 - sigmoid(x), a, b)) -> log(clip(sigmoid(-x), a, b))", &one_minus_sigmoid},
    {"log_softmax", "log(softmax(x)) -> log_softmax(x)", &log_of_softmax},
    {"logsumexp", "log(sum(exp(x), axes)) -> logsumexp(x, axes)", &log_sum_exp},
    {"log_add_exp", "log(exp(a) + exp(b)) -> a + softplus(b - a) where a > b, its mirror, a + log 2 at a tie", &log_add_exp_rule},
    {"log_sub_exp", "log(exp(a) - exp(b)) -> a + log1mexp(b - a)", &log_sub_exp},
    {"log1mexp", "log(1 - exp(x)) -> log1mexp(x)", &log1mexp_of_log},
    {"log1p_neg_exp", "log1p(-exp(x)) -> log1mexp(x)", &log1mexp_of_log1p},
    {"log1p", "log(1 + x) -> log1p(x)", &log1p},
    {"log1m", "log(1 - x) -> log1p(-x)", &log1m},
    {"softplus", "log1p(exp(x)) -> softplus(x)", &softplus},
    {"expm1", "exp(x) - 1 -> expm1(x)", &expm1},
};

}  // namespace

std::span<const LocalRewrite> stabilize_rules() { return kRules; }

bool stabilize(Graph& graph, const PassContext& ctx) {
  return rewrite_to_fixed_point(graph, stabilize_rules(), "stabilize", ctx);
}

}  // namespace tgc
