// Buffer lifetimes of a scheduled graph: which variables share a buffer (an op's output that
// is a view of its input), whether that buffer is the function's own (never seen by the
// caller), and the last node that reads it. The inplace pass and the memory plan decide
// from these facts whether a buffer may be overwritten or handed on.
#pragma once

#include <unordered_map>
#include <vector>

#include "ops/core/graph.h"

namespace tgc {

class BufferLifetimes {
 public:
  // `order` is the schedule (the graph's toposort, as the linker lays it out).
  BufferLifetimes(const Graph& graph, const std::vector<Node*>& order);

  // The variable whose buffer `v` shares: itself, or for a view the root of what it views.
  const Variable* root(const Variable* v) const;
  // Whether the buffer of `v` belongs to the function alone: its root is a node's output
  // (not a graph input, a constant or a shared value) and neither the root nor any view of
  // it is a graph output. Only such buffers may be overwritten or recycled.
  bool own(const Variable* v) const;
  // The schedule position of the last node reading `v` itself (its producer's position when
  // nothing reads it; -1 for variables no node produces or reads).
  int last_use(const Variable* v) const;
  // The last position at which any variable sharing v's buffer is read: after it, the
  // buffer is dead.
  int buffer_death(const Variable* v) const;
  // Whether `v` is a view of another variable (shares its root's buffer).
  bool is_view(const Variable* v) const { return root(v) != v; }
  // How many variables share v's buffer (1: no views of it).
  int group_size(const Variable* v) const;
  // Whether v or a variable sharing its buffer is a graph output (the caller reads it after
  // every node ran).
  bool returned(const Variable* v) const;

 private:
  struct Group {
    bool own = true;
    bool returned = false;
    int death = -1;
    int size = 0;
  };
  std::unordered_map<const Variable*, const Variable*> root_;
  std::unordered_map<const Variable*, int> last_use_;
  std::unordered_map<const Variable*, Group> groups_;  // keyed by root
};

}  // namespace tgc
