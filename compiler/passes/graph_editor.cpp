// GraphEditor: the client index, replacement with incremental indexing, dead-node pruning.
#include "compiler/passes/graph_editor.h"

#include "runtime/error.h"

namespace tgc {

namespace {
const std::vector<std::pair<Node*, int>> kNoClients;
}

GraphEditor::GraphEditor(Graph& graph) : graph_(graph) {
  for (Node* n : graph_.toposort()) index_node(n);
  for (auto& o : graph_.outputs()) ++output_uses_[o.get()];
}

void GraphEditor::index_node(Node* n) {
  known_.insert(n);
  retained_.push_back(n->shared_from_this());
  for (size_t i = 0; i < n->inputs().size(); ++i)
    clients_[n->inputs()[i].get()].push_back({n, static_cast<int>(i)});
}

const std::vector<std::pair<Node*, int>>& GraphEditor::clients(const Variable* v) const {
  auto it = clients_.find(v);
  return it == clients_.end() ? kNoClients : it->second;
}

int GraphEditor::output_uses(const Variable* v) const {
  auto it = output_uses_.find(v);
  return it == output_uses_.end() ? 0 : it->second;
}

// Post-order walk from `root` over producers the index has not seen yet; the nodes come out
// with every producer before its readers.
std::vector<Node*> GraphEditor::index_new_nodes(const VarPtr& root, const Variable* forbidden) {
  std::vector<Node*> fresh;
  Node* start = root->owner();
  if (!start || known_.count(start)) return fresh;
  struct Frame { Node* node; size_t next; };
  std::unordered_set<Node*> visiting{start};
  std::vector<Frame> stack{{start, 0}};
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next < f.node->inputs().size()) {
      const VarPtr& in = f.node->inputs()[f.next++];
      TGC_INTERNAL_CHECK(in.get() != forbidden,
                         "a rewrite made a cycle: the replacement of " + forbidden->label() +
                             " reads it");
      Node* p = in->owner();
      if (p && !known_.count(p) && visiting.insert(p).second) stack.push_back({p, 0});
      continue;
    }
    fresh.push_back(f.node);
    stack.pop_back();
  }
  for (Node* n : fresh) index_node(n);
  return fresh;
}

std::vector<Node*> GraphEditor::replace(Variable* old, const VarPtr& replacement) {
  TGC_INTERNAL_CHECK(interchangeable(old->type(), replacement->type()),
                     "a rewrite changes type " + old->type().str() + " into " +
                         replacement->type().str() + " for " + old->label());
  if (replacement.get() == old) return {};
  // A computed replacement takes the user's name of what it replaces, so later errors and
  // profiles still say "p_1" (graph results are private copies: renaming them is safe).
  if (replacement->name().empty() && !old->name().empty() && replacement->kind() == Variable::Kind::Result)
    replacement->set_name(old->name());
  std::vector<Node*> fresh = index_new_nodes(replacement, old);
  // A dead node may still be the producer of the replacement or of a new node's input (a
  // rule that reuses an old expression): bring it back to life with its inputs.
  std::vector<Node*> revive{replacement->owner()};
  for (Node* n : fresh)
    for (auto& in : n->inputs()) revive.push_back(in->owner());
  while (!revive.empty()) {
    Node* n = revive.back();
    revive.pop_back();
    if (!n || !dead_.erase(n)) continue;
    for (size_t i = 0; i < n->inputs().size(); ++i) {
      clients_[n->inputs()[i].get()].push_back({n, static_cast<int>(i)});
      revive.push_back(n->inputs()[i]->owner());
    }
  }

  auto readers = std::move(clients_[old]);
  clients_.erase(old);
  auto& new_readers = clients_[replacement.get()];
  for (auto [node, pos] : readers) {
    node->set_input(pos, replacement);
    new_readers.push_back({node, pos});
  }
  if (int uses = output_uses(old)) {
    for (size_t i = 0; i < graph_.outputs().size(); ++i)
      if (graph_.outputs()[i].get() == old) graph_.set_output(i, replacement);
    output_uses_.erase(old);
    output_uses_[replacement.get()] += uses;
  }
  if (Node* owner = old->owner()) prune_if_dead(owner);
  return fresh;
}

// A node none of whose outputs is read or returned is dead: its inputs lose it as a reader,
// which may kill their producers in turn.
void GraphEditor::prune_if_dead(Node* start) {
  std::vector<Node*> todo{start};
  while (!todo.empty()) {
    Node* n = todo.back();
    todo.pop_back();
    if (dead_.count(n) || !known_.count(n)) continue;
    bool used = false;
    for (int i = 0; i < n->num_outputs() && !used; ++i)
      used = num_uses(n->output_raw(i)) > 0;
    if (used) continue;
    dead_.insert(n);
    for (size_t i = 0; i < n->inputs().size(); ++i) {
      Variable* in = n->inputs()[i].get();
      auto& list = clients_[in];
      for (size_t k = 0; k < list.size(); ++k)
        if (list[k].first == n && list[k].second == static_cast<int>(i)) {
          list.erase(list.begin() + static_cast<long>(k));
          break;
        }
      if (Node* p = in->owner()) todo.push_back(p);
    }
  }
}

}  // namespace tgc
