// Graph (Theano's FunctionGraph): the subgraph between explicit inputs and outputs, owning
// its own copy of every node so rewrites never touch the user's expressions.
#pragma once

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ops/core/node.h"

namespace tgc {

// Whether a rewrite may put a variable of type `b` where one of type `a` was read: the same
// dtype and rank, and no dim known on both sides with different sizes (a rewrite may know
// more or less about a dim than the expression it replaces, never something different).
bool interchangeable(const Type& a, const Type& b);

// Copies the expressions computing `outputs` (every node, with its op, output types and
// names), reading replacements.at(v) wherever the original reads v — v is not walked into —
// and keeping every other root (input, constant, shared) as it is. A replacement must be
// interchangeable with what it replaces (InternalError otherwise). Iterative, any depth.
std::vector<VarPtr> clone_replace(const std::vector<VarPtr>& outputs,
                                  const std::unordered_map<const Variable*, VarPtr>& replacements);

class Graph {
 public:
  // Copies the expressions computing `outputs` from `inputs`. Constants and shared
  // variables are kept as they are (their values are shared, not copied). Throws
  // InputError when an output needs a graph input that is not among `inputs`, naming it.
  static Graph clone_of(const std::vector<VarPtr>& inputs, const std::vector<VarPtr>& outputs);

  const std::vector<VarPtr>& inputs() const { return inputs_; }
  const std::vector<VarPtr>& outputs() const { return outputs_; }

  // Nodes in an order where every node comes after the producers of its inputs.
  // Deterministic: depth-first from the outputs, inputs visited left to right.
  std::vector<Node*> toposort() const;
  // Every variable the outputs depend on that no node produces (inputs, constants, shared).
  std::vector<Variable*> roots() const;
  // For each variable, the (node, input position) pairs that read it.
  std::unordered_map<const Variable*, std::vector<std::pair<Node*, int>>> clients() const;

  // Makes every reader of `old` (nodes and graph outputs) read `replacement` instead.
  // Throws InternalError when the types are not interchangeable: a rewrite preserves types.
  void replace(const Variable* old, VarPtr replacement);
  // Makes graph output i be `v` (the optimizer's rewriter keeps its own client index and
  // rewires nodes itself; this is its way to rewire outputs). Same type rule as replace().
  void set_output(size_t i, VarPtr v);

  // One line per node in toposort order: "exp_0 = Elemwise{exp}(x)".
  std::string str() const;

 private:
  std::vector<VarPtr> inputs_;
  std::vector<VarPtr> outputs_;
};

}  // namespace tgc
