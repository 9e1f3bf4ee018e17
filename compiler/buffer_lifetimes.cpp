// Buffer lifetimes: view roots from Op::view_of_input, last readers from the schedule,
// and the buffers the caller can see (graph inputs, constants, shared values, outputs).
#include "compiler/buffer_lifetimes.h"

#include <algorithm>

#include "ops/control/ifelse.h"

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
  // An IfElse output is the buffer of its then value or of its else value, whichever the
  // condition picks at run time: the two values' buffers become one group (the else value's
  // re-rooted onto the then value's), which is nobody's own to overwrite or recycle.
  std::vector<const Variable*> branch_roots;
  for (const Node* n : order) {
    const auto* ifelse = dynamic_cast<const IfElse*>(&n->op());
    if (!ifelse) continue;
    for (int i = 0; i < ifelse->size(); ++i) {
      const Variable* a = root(n->inputs()[ifelse->then_input(i)].get());
      const Variable* b = root(n->inputs()[ifelse->else_input(i)].get());
      branch_roots.push_back(a);
      if (a == b) continue;
      for (auto& [v, r] : root_)
        if (r == b) r = a;
      root_[b] = a;
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
  for (const Variable* r : branch_roots) group_of(r).own = false;
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
