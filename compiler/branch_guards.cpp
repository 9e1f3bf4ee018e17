// Branch guards: a reverse walk over the toposort unions the readers' guards, and a Kahn
// schedule that puts each condition's producer before the work it guards.
#include "compiler/branch_guards.h"

#include <algorithm>
#include <functional>
#include <map>
#include <queue>
#include <unordered_set>

#include "ops/control/ifelse.h"

namespace tgc {

namespace {

// Past these the guard is "always": an exact guard would cost more to test than it saves.
constexpr size_t kMaxTerms = 16;
constexpr size_t kMaxTermLength = 16;

bool contains_all(const GuardTerm& big, const GuardTerm& small) {
  for (const BranchLiteral& l : small)
    if (std::find(big.begin(), big.end(), l) == big.end()) return false;
  return true;
}

// Adds `term` to `g` unless a term of `g` is contained in it; drops the terms it is contained
// in. `always` becomes true for the empty term or when the guard grows past the bounds.
void add_term(Guard& g, bool& always, GuardTerm term) {
  if (always) return;
  if (term.empty() || term.size() > kMaxTermLength) {
    always = true;
    return;
  }
  for (const GuardTerm& t : g)
    if (contains_all(term, t)) return;
  std::erase_if(g, [&](const GuardTerm& t) { return contains_all(t, term); });
  g.push_back(std::move(term));
  if (g.size() > kMaxTerms) always = true;
}

}  // namespace

BranchGuards::BranchGuards(const Graph& graph) {
  const std::vector<Node*> topo = graph.toposort();
  for (const Node* n : topo) any_ = any_ || dynamic_cast<const IfElse*>(&n->op()) != nullptr;
  if (!any_) return;
  const auto clients = graph.clients();
  std::unordered_set<const Variable*> results;
  for (const VarPtr& o : graph.outputs()) results.insert(o.get());
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    const Node* n = *it;
    Guard g;
    bool always = false;
    for (int k = 0; k < n->num_outputs() && !always; ++k) {
      const Variable* out = n->output_raw(k);
      if (results.count(out)) always = true;
      auto c = clients.find(out);
      if (c == clients.end()) continue;
      for (const auto& [reader, pos] : c->second) {
        const Guard& rg = guard(reader);  // readers come later in the toposort: known
        const auto* ifelse = dynamic_cast<const IfElse*>(&reader->op());
        if (!ifelse || pos == IfElse::kCond) {
          if (rg.empty()) always = true;
          for (const GuardTerm& t : rg) add_term(g, always, t);
          continue;
        }
        const BranchLiteral lit{reader, pos <= ifelse->size()};
        if (rg.empty()) add_term(g, always, {lit});
        for (const GuardTerm& t : rg) {
          GuardTerm extended = t;
          if (std::find(extended.begin(), extended.end(), lit) == extended.end()) extended.push_back(lit);
          add_term(g, always, std::move(extended));
        }
      }
      if (always) break;
    }
    // A node nothing reads (an unused output's producer is still read for its other outputs)
    // stays unguarded: it is in the graph because something needs it.
    if (!always && !g.empty()) guards_[n] = std::move(g);
  }
  // Classes: a canonical form of each guard (literals and terms sorted) numbered in turn.
  std::map<std::vector<std::vector<std::pair<const Node*, bool>>>, int> numbers;
  for (const auto& [n, g] : guards_) {
    std::vector<std::vector<std::pair<const Node*, bool>>> key;
    for (const GuardTerm& t : g) {
      auto& k = key.emplace_back();
      for (const BranchLiteral& l : t) k.emplace_back(l.ifelse, l.when);
      std::sort(k.begin(), k.end());
    }
    std::sort(key.begin(), key.end());
    classes_[n] = numbers.emplace(std::move(key), static_cast<int>(numbers.size()) + 1).first->second;
  }
}

int BranchGuards::guard_class(const Node* n) const {
  auto it = classes_.find(n);
  return it == classes_.end() ? 0 : it->second;
}

const Guard& BranchGuards::guard(const Node* n) const {
  static const Guard kAlways;
  auto it = guards_.find(n);
  return it == guards_.end() ? kAlways : it->second;
}

std::vector<Node*> BranchGuards::order(const Graph& graph) const {
  std::vector<Node*> topo = graph.toposort();
  if (!any_ || guards_.empty()) return topo;
  std::unordered_map<const Node*, size_t> index;
  for (size_t i = 0; i < topo.size(); ++i) index[topo[i]] = i;
  // Edges: producer -> reader, plus condition producer -> guarded node.
  std::vector<std::vector<size_t>> next(topo.size());
  std::vector<int> waiting(topo.size(), 0);
  auto add_edge = [&](size_t from, size_t to) {
    next[from].push_back(to);
    ++waiting[to];
  };
  for (size_t i = 0; i < topo.size(); ++i) {
    std::unordered_set<const Node*> producers;
    for (const VarPtr& in : topo[i]->inputs())
      if (in->owner() && producers.insert(in->owner()).second) add_edge(index.at(in->owner()), i);
  }
  // Each IfElse's condition producer, and what it depends on (nodes that must stay before it).
  std::unordered_map<const Node*, const Node*> cond_producer;
  std::unordered_map<const Node*, std::unordered_set<const Node*>> cond_ancestors;
  for (const Node* n : topo) {
    if (!dynamic_cast<const IfElse*>(&n->op())) continue;
    const Node* p = n->inputs()[IfElse::kCond]->owner();
    if (!p) continue;
    cond_producer[n] = p;
    std::unordered_set<const Node*>& anc = cond_ancestors[n];
    std::vector<const Node*> stack{p};
    while (!stack.empty()) {
      const Node* a = stack.back();
      stack.pop_back();
      if (!anc.insert(a).second) continue;
      for (const VarPtr& in : a->inputs())
        if (in->owner()) stack.push_back(in->owner());
    }
  }
  for (size_t i = 0; i < topo.size(); ++i) {
    std::unordered_set<const Node*> conds;
    for (const GuardTerm& t : guard(topo[i]))
      for (const BranchLiteral& l : t) conds.insert(l.ifelse);
    for (const Node* k : conds) {
      auto p = cond_producer.find(k);
      if (p == cond_producer.end() || cond_ancestors.at(k).count(topo[i])) continue;
      add_edge(index.at(p->second), i);
    }
  }
  // Kahn's algorithm, taking the ready node earliest in the toposort.
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
  for (size_t i = 0; i < topo.size(); ++i)
    if (waiting[i] == 0) ready.push(i);
  std::vector<Node*> out;
  out.reserve(topo.size());
  while (!ready.empty()) {
    const size_t i = ready.top();
    ready.pop();
    out.push_back(topo[i]);
    for (size_t j : next[i])
      if (--waiting[j] == 0) ready.push(j);
  }
  // Conditions guarding each other's producers can tie the extra edges into a cycle: then
  // the plain toposort, where a test whose condition comes later counts as holding.
  return out.size() == topo.size() ? out : topo;
}

}  // namespace tgc
