// GraphEditor: a Graph with an index of each variable's readers, so a rewrite replaces a
// variable in time proportional to its readers (not the graph's size) and knows which nodes
// died. Every pass that rewires nodes goes through it; it keeps every node it has seen alive
// until it is destroyed, so raw Node pointers held during a pass never dangle.
#pragma once

#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ops/core/graph.h"

namespace tgc {

class GraphEditor {
 public:
  explicit GraphEditor(Graph& graph);

  Graph& graph() { return graph_; }
  const Graph& graph() const { return graph_; }

  // The live nodes reading `v`, with the input position (a node reading v twice is listed
  // twice).
  const std::vector<std::pair<Node*, int>>& clients(const Variable* v) const;
  // How many times `v` is a graph output.
  int output_uses(const Variable* v) const;
  // Readers plus output appearances: 1 means exactly one consumer.
  int num_uses(const Variable* v) const { return int(clients(v).size()) + output_uses(v); }
  bool is_output(const Variable* v) const { return output_uses(v) > 0; }
  bool alive(const Node* n) const { return known_.count(n) && !dead_.count(n); }

  // Makes every reader of `old` (nodes and graph outputs) read `replacement`, indexes the
  // nodes between `replacement` and the existing graph, and marks the nodes that no longer
  // reach an output dead. Returns the new nodes in topological order. InternalError when the
  // types are not interchangeable (see Graph::replace) or when `replacement` depends on
  // `old` (a rewrite that would make a cycle).
  std::vector<Node*> replace(Variable* old, const VarPtr& replacement);

  // Live nodes in topological order (the graph's toposort).
  std::vector<Node*> toposort() const { return graph_.toposort(); }

 private:
  void index_node(Node* n);
  std::vector<Node*> index_new_nodes(const VarPtr& root, const Variable* forbidden);
  void prune_if_dead(Node* n);

  Graph& graph_;
  std::unordered_map<const Variable*, std::vector<std::pair<Node*, int>>> clients_;
  std::unordered_map<const Variable*, int> output_uses_;
  std::unordered_set<const Node*> known_;
  std::unordered_set<const Node*> dead_;
  std::vector<std::shared_ptr<Node>> retained_;
};

}  // namespace tgc
