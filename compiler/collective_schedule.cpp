// issue_collectives_early(): a priority Kahn walk over the schedule (see collective_schedule.h).
#include "compiler/collective_schedule.h"

#include <algorithm>
#include <queue>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "ops/control/ifelse.h"
#include "ops/core/variable.h"

namespace tgc {
namespace {

// Lower runs first among ready nodes.
enum Rank { kCollective = 0, kFeedsCollective = 1, kOther = 2, kReadsCollective = 3 };

bool is_collective(const Node* n) { return n && n->op().is_collective(); }

}  // namespace

std::vector<Node*> issue_collectives_early(const std::vector<Node*>& order) {
  if (std::none_of(order.begin(), order.end(), is_collective)) return order;
  if (std::any_of(order.begin(), order.end(), [](const Node* n) { return dynamic_cast<const IfElse*>(&n->op()); }))
    return order;
  std::unordered_map<const Node*, size_t> index;
  for (size_t i = 0; i < order.size(); ++i) index[order[i]] = i;

  std::vector<int> rank(order.size(), kOther);
  std::vector<std::vector<size_t>> next(order.size());
  std::vector<int> waiting(order.size(), 0);
  for (size_t i = 0; i < order.size(); ++i) {
    const Node* n = order[i];
    if (is_collective(n)) rank[i] = kCollective;
    std::unordered_set<const Node*> producers;
    for (const VarPtr& in : n->inputs()) {
      const Node* p = in->owner();
      if (!p || !producers.insert(p).second) continue;
      auto it = index.find(p);
      if (it == index.end()) continue;  // not scheduled here (cannot happen for a whole schedule)
      next[it->second].push_back(i);
      ++waiting[i];
      if (is_collective(n) && !is_collective(p)) rank[it->second] = std::min(rank[it->second], int(kFeedsCollective));
    }
  }
  for (size_t i = 0; i < order.size(); ++i) {
    if (rank[i] != kOther) continue;
    for (const VarPtr& in : order[i]->inputs())
      if (is_collective(in->owner())) rank[i] = kReadsCollective;
  }

  using Key = std::pair<int, size_t>;  // (rank, position in `order`)
  std::priority_queue<Key, std::vector<Key>, std::greater<>> ready;
  for (size_t i = 0; i < order.size(); ++i)
    if (waiting[i] == 0) ready.push({rank[i], i});
  std::vector<Node*> out;
  out.reserve(order.size());
  while (!ready.empty()) {
    const size_t i = ready.top().second;
    ready.pop();
    out.push_back(order[i]);
    for (size_t j : next[i])
      if (--waiting[j] == 0) ready.push({rank[j], j});
  }
  return out.size() == order.size() ? out : order;
}

}  // namespace tgc
