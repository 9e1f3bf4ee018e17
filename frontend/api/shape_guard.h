// The guard of the shape facts a function takes from its shared variables' values: which
// shapes a compile may assume (SharedShapeHistory) and whether the assumptions of a compiled
// program still hold at a call (ShapeGuard). docs/optimizations.md#shape-facts.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "compiler/passes/pass_context.h"
#include "ops/core/graph.h"
#include "ops/core/variable.h"

namespace tgc {

// The shapes one compiled program assumed, checked before each of its calls.
class ShapeGuard {
 public:
  using Fact = std::pair<const SharedValue*, Shape>;

  ShapeGuard() = default;
  explicit ShapeGuard(std::vector<Fact> facts) : facts_(std::move(facts)) {}

  // Whether every shared value still has its assumed shape: one shape compare per fact, no
  // allocation (it runs on every call).
  bool holds() const {
    for (const auto& [value, shape] : facts_)
      if (value->current().shape() != shape) return false;
    return true;
  }
  // The first fact that no longer holds, for the log: "'b' is (1, 3), compiled for (3, 3)";
  // "" when all hold.
  std::string first_broken() const;
  // The facts as the optimizer takes them (PassContext::shared_shapes).
  SharedShapeFacts as_pass_facts() const;
  const std::vector<Fact>& facts() const { return facts_; }

 private:
  std::vector<Fact> facts_;
};

// The shared variables a function reads and the shapes it was compiled for. A variable seen
// with more than kShapesAssumed distinct shapes is no longer assumed to have any: later
// compiles leave its unknown dims unknown, like an input's, so a value whose shape keeps
// changing costs a bounded number of compiles.
class SharedShapeHistory {
 public:
  static constexpr size_t kShapesAssumed = 4;

  SharedShapeHistory() = default;
  // The shared variables that `graph` reads, each once.
  explicit SharedShapeHistory(const Graph& graph);

  // The facts for a compile now: each shared value's current shape, except those of the
  // variables whose shape is no longer assumed. Appends to `log` a line for each variable
  // that just crossed the limit.
  ShapeGuard facts_now(std::vector<std::string>& log);

 private:
  struct Entry {
    const SharedValue* value;
    std::vector<Shape> seen;  // the distinct shapes compiled for
    bool assumed = true;
  };
  std::vector<Entry> entries_;
};

}  // namespace tgc
