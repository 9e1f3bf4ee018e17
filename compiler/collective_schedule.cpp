// issue_collectives_early(): a priority Kahn walk over the schedule (see collective_schedule.h).
#include "compiler/collective_schedule.h"

#include <algorithm>
#include <cstdint>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "ops/control/ifelse.h"
#include "ops/core/variable.h"

namespace tgc {
namespace {

// Lower runs first among ready nodes: collectives, then other work nearest to a collective,
// then the readers of collectives' results (unless they feed another collective).
enum Class { kCollective = 0, kWork = 1, kReadsCollective = 2 };

bool is_collective(const Node* n) { return n && n->op().is_collective(); }

}  // namespace

std::vector<Node*> issue_collectives_early(const std::vector<Node*>& order) {
  if (std::none_of(order.begin(), order.end(), is_collective)) return order;
  if (std::any_of(order.begin(), order.end(), [](const Node* n) { return dynamic_cast<const IfElse*>(&n->op()); }))
    return order;
  const size_t count = order.size();
  std::unordered_map<const Node*, size_t> index;
  for (size_t i = 0; i < count; ++i) index[order[i]] = i;

  std::vector<std::vector<size_t>> next(count);
  std::vector<int> waiting(count, 0);
  for (size_t i = 0; i < count; ++i) {
    std::unordered_set<const Node*> producers;
    for (const VarPtr& in : order[i]->inputs()) {
      const Node* p = in->owner();
      if (!p || !producers.insert(p).second) continue;
      auto it = index.find(p);
      if (it == index.end()) continue;  // not scheduled here (cannot happen for a whole schedule)
      next[it->second].push_back(i);
      ++waiting[i];
    }
  }
  // Each node's distance to the nearest collective it feeds (0: a collective; nodes between
  // a gradient's product and its all_reduce, a cast or a scale, keep the product near).
  constexpr size_t kFar = SIZE_MAX;
  std::vector<size_t> distance(count, kFar);
  for (size_t i = count; i-- > 0;) {
    if (is_collective(order[i])) {
      distance[i] = 0;
      continue;
    }
    for (size_t j : next[i])
      if (distance[j] != kFar) distance[i] = std::min(distance[i], distance[j] + 1);
  }
  std::vector<int> cls(count, kWork);
  for (size_t i = 0; i < count; ++i) {
    if (is_collective(order[i])) {
      cls[i] = kCollective;
    } else if (distance[i] == kFar) {
      for (const VarPtr& in : order[i]->inputs())
        if (is_collective(in->owner())) cls[i] = kReadsCollective;
    }
  }

  // (class, then for work its distance and for a reader when the last collective it reads
  // was issued, so that readers wait for the collectives in their order; position in `order`)
  using Key = std::tuple<int, size_t, size_t>;
  std::priority_queue<Key, std::vector<Key>, std::greater<>> ready;
  std::vector<size_t> issued(count, 0);  // each node's position in the new order
  auto push = [&](size_t i) {
    size_t second = 0;
    if (cls[i] == kWork) second = distance[i];
    if (cls[i] == kReadsCollective)
      for (const VarPtr& in : order[i]->inputs())
        if (is_collective(in->owner())) second = std::max(second, issued[index.at(in->owner())]);
    ready.push({cls[i], second, i});
  };
  for (size_t i = 0; i < count; ++i)
    if (waiting[i] == 0) push(i);
  std::vector<Node*> out;
  out.reserve(count);
  while (!ready.empty()) {
    const size_t i = std::get<2>(ready.top());
    ready.pop();
    issued[i] = out.size();
    out.push_back(order[i]);
    for (size_t j : next[i])
      if (--waiting[j] == 0) push(j);
  }
  return out.size() == count ? out : order;
}

}  // namespace tgc
