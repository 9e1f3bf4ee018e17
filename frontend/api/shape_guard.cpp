// ShapeGuard and SharedShapeHistory: the facts taken from shared values, and their check.
#include "frontend/api/shape_guard.h"

#include <algorithm>
#include <unordered_set>

#include "ops/core/variable.h"

namespace tgc {

namespace {

std::string shared_name(const SharedValue& v) { return v.name().empty() ? "<unnamed>" : v.name(); }

}  // namespace

std::string ShapeGuard::first_broken() const {
  for (const auto& [value, shape] : facts_)
    if (value->current().shape() != shape)
      return "'" + shared_name(*value) + "' is " + shape_str(value->current().shape()) + ", compiled for " +
             shape_str(shape);
  return "";
}

SharedShapeFacts ShapeGuard::as_pass_facts() const {
  SharedShapeFacts out;
  for (const auto& [value, shape] : facts_) out.emplace(value, shape);
  return out;
}

SharedShapeHistory::SharedShapeHistory(const Graph& graph) {
  std::unordered_set<const SharedValue*> seen;
  for (const Variable* root : graph.roots())
    if (root->kind() == Variable::Kind::Shared && seen.insert(root->storage().get()).second)
      entries_.push_back({root->storage().get(), {}, true});
}

ShapeGuard SharedShapeHistory::facts_now(std::vector<std::string>& log) {
  std::vector<ShapeGuard::Fact> facts;
  for (Entry& e : entries_) {
    if (!e.assumed) continue;
    const Shape& now = e.value->current().shape();
    if (std::find(e.seen.begin(), e.seen.end(), now) == e.seen.end()) e.seen.push_back(now);
    if (e.seen.size() > kShapesAssumed) {
      e.assumed = false;
      log.push_back("shared variable '" + shared_name(*e.value) + "' has had " + std::to_string(e.seen.size()) +
                    " shapes: its shape is no longer assumed");
      continue;
    }
    facts.emplace_back(e.value, now);
  }
  return ShapeGuard(std::move(facts));
}

}  // namespace tgc
