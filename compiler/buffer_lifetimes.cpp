// Buffer lifetimes: view roots from Op::view_of_input, last readers from the schedule,
// and the buffers the caller can see (graph inputs, constants, shared values, outputs).
#include "compiler/buffer_lifetimes.h"

#include <algorithm>

namespace tgc {

BufferLifetimes::BufferLifetimes(const Graph& graph, const std::vector<Node*>& order) {
  for (size_t i = 0; i < order.size(); ++i) {
    const Node* n = order[i];
    const int pos = static_cast<int>(i);
    for (const VarPtr& in : n->inputs()) last_use_[in.get()] = pos;
    for (int k = 0; k < n->num_outputs(); ++k) {
      const Variable* out = n->output_raw(k);
      // A transfer between memories makes a new buffer (on the host it is a view).
      const bool moves = n->op().is_transfer() && n->placement() != DeviceKind::Host;
      int viewed = moves ? -1 : n->op().view_of_input(k);
      root_[out] = viewed >= 0 ? root(n->inputs()[viewed].get()) : out;
      last_use_.emplace(out, pos);  // read later: overwritten by its readers
    }
  }
  // Readers come after their producer in the schedule, so last_use_ is final now.
  auto group_of = [&](const Variable* v) -> Group& {
    Group& g = groups_[root(v)];
    if (root(v)->kind() != Variable::Kind::Result) g.own = false;
    return g;
  };
  for (const auto& [v, pos] : last_use_) {
    Group& g = group_of(v);
    g.death = std::max(g.death, pos);
    ++g.size;
  }
  for (const VarPtr& o : graph.outputs()) {
    Group& g = group_of(o.get());
    g.own = false;
    g.returned = true;
  }
  for (const VarPtr& in : graph.inputs()) group_of(in.get()).own = false;
}

const Variable* BufferLifetimes::root(const Variable* v) const {
  auto it = root_.find(v);
  return it == root_.end() ? v : it->second;
}

bool BufferLifetimes::own(const Variable* v) const {
  auto it = groups_.find(root(v));
  return it != groups_.end() && it->second.own;
}

int BufferLifetimes::last_use(const Variable* v) const {
  auto it = last_use_.find(v);
  return it == last_use_.end() ? -1 : it->second;
}

int BufferLifetimes::buffer_death(const Variable* v) const {
  auto it = groups_.find(root(v));
  return it == groups_.end() ? -1 : it->second.death;
}

int BufferLifetimes::group_size(const Variable* v) const {
  auto it = groups_.find(root(v));
  return it == groups_.end() ? 1 : it->second.size;
}

bool BufferLifetimes::returned(const Variable* v) const {
  auto it = groups_.find(root(v));
  return it != groups_.end() && it->second.returned;
}

}  // namespace tgc
