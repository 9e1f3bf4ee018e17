// Branch guards of lazy ifelse: for each node, the conditions under which some result needs
// it (Theano's lazy evaluation, decided once at link time), and the schedule that computes
// each condition before the work it guards. The linker turns guards into Thunk::guard; the
// executor skips a thunk whose guard fails (runtime/executor.cpp).
#pragma once

#include <unordered_map>
#include <vector>

#include "ops/core/graph.h"

namespace tgc {

// The value of one IfElse's condition: `when` true means the then branch is taken.
struct BranchLiteral {
  const Node* ifelse;
  bool when;
  bool operator==(const BranchLiteral&) const = default;
};
using GuardTerm = std::vector<BranchLiteral>;  // a conjunction, outermost ifelse first
using Guard = std::vector<GuardTerm>;          // a disjunction; empty: always needed

class BranchGuards {
 public:
  // A node's guard is the union over its readers: a result (graph output) needs it always;
  // another node passes its own guard on, an IfElse adds "its condition is true/false" for its
  // then/else inputs (its condition input is needed whenever the IfElse is). Terms that contain
  // another are dropped; a guard larger than a small bound becomes "always" (running work
  // the result does not need is always correct, only slower).
  explicit BranchGuards(const Graph& graph);

  bool any() const { return any_; }
  const Guard& guard(const Node* n) const;
  // A number per distinct guard: nodes with equal guards (the same terms in any order) share
  // it; 0 is "always". Fusion joins only nodes of one class, so a kernel never makes work of
  // one branch run for another or for everything.
  int guard_class(const Node* n) const;

  // The toposort with, for each IfElse, the producer of its condition before every node its
  // guard mentions (where the graph allows it: a node the condition depends on stays before
  // it, and its test then counts as holding). Without IfElse nodes: graph.toposort() itself.
  std::vector<Node*> order(const Graph& graph) const;

 private:
  bool any_ = false;
  std::unordered_map<const Node*, Guard> guards_;
  std::unordered_map<const Node*, int> classes_;
};

}  // namespace tgc
