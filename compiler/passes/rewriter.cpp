// rewrite_to_fixed_point: the worklist engine behind every rule table.
#include <deque>
#include <string>
#include <unordered_set>

#include "compiler/passes/local_rewrite.h"
#include "runtime/error.h"

namespace tgc {

namespace {

// "mul(x, 1)": a node's expression in its inputs' labels, for the trace.
std::string describe_node(const Node& n) {
  std::string s = n.op().name() + "(";
  for (size_t i = 0; i < n.inputs().size(); ++i) s += (i ? ", " : "") + n.inputs()[i]->label();
  return s + ")";
}

}  // namespace

bool rewrite_to_fixed_point(Graph& graph, std::span<const LocalRewrite> rules, std::string_view pass,
                            const PassContext& ctx) {
  std::vector<const LocalRewrite*> active;
  for (const LocalRewrite& r : rules)
    if (ctx.enabled(r.name)) active.push_back(&r);
  if (active.empty()) return false;

  GraphEditor editor(graph);
  ShapeEquivalence shapes(&ctx.shared_shapes);
  std::deque<Node*> work;
  std::unordered_set<Node*> queued;
  auto enqueue = [&](Node* n) {
    if (queued.insert(n).second) work.push_back(n);
  };
  std::vector<Node*> initial = editor.toposort();
  for (Node* n : initial) enqueue(n);

  // Every application removes or simplifies something; a rule pair that undoes itself would
  // loop forever, so the budget is a generous multiple of the graph's size.
  const size_t budget = 64 * (initial.size() + 16);
  size_t applied = 0;
  std::string recent;
  bool changed = false;
  while (!work.empty()) {
    Node* node = work.front();
    work.pop_front();
    queued.erase(node);
    if (!editor.alive(node)) continue;
    for (const LocalRewrite* rule : active) {
      RewriteEnv env{editor, ctx, shapes};
      std::vector<VarPtr> repl = rule->apply(*node, env);
      if (repl.empty()) continue;
      TGC_INTERNAL_CHECK(static_cast<int>(repl.size()) == node->num_outputs(),
                         std::string(rule->name) + " returned " + std::to_string(repl.size()) +
                             " replacements for " + std::to_string(node->num_outputs()) + " outputs");
      bool any = false;
      for (int i = 0; i < node->num_outputs(); ++i)
        any = any || (repl[i] && repl[i].get() != node->output_raw(i));
      if (!any) continue;
      TGC_INTERNAL_CHECK(++applied <= budget,
                         "the rewrites of " + std::string(pass) +
                             " do not reach a fixed point; last applied: " + recent);
      recent = std::string(rule->name) + (recent.empty() ? "" : ", " + recent.substr(0, 200));
      std::string before = ctx.trace ? describe_node(*node) : std::string();
      // Keep the node alive while its outputs are rewired: the editor retains it.
      for (int i = 0; i < node->num_outputs(); ++i) {
        if (!repl[i] || repl[i].get() == node->output_raw(i)) continue;
        std::vector<Node*> fresh = editor.replace(node->output_raw(i), repl[i]);
        for (Node* f : fresh) enqueue(f);
        // A reader's rules see the replacement; its readers' rules may look through it (two-level
        // patterns: neg(mul(c, x)) once c became a constant), so they are visited again too.
        for (auto& [reader, pos] : editor.clients(repl[i].get())) {
          enqueue(reader);
          for (int k = 0; k < reader->num_outputs(); ++k)
            for (auto& [next, at] : editor.clients(reader->output_raw(k))) enqueue(next);
        }
        if (repl[i]->owner()) enqueue(repl[i]->owner());
      }
      if (ctx.trace) {
        std::string after;
        for (int i = 0; i < node->num_outputs(); ++i)
          if (repl[i]) after += (after.empty() ? "" : ", ") + (repl[i]->owner() ? describe_node(*repl[i]->owner()) : repl[i]->label());
        ctx.trace->push_back({std::string(pass), std::string(rule->name), before, after});
      }
      changed = true;
      break;
    }
  }
  return changed;
}

}  // namespace tgc
