// rematerialize (see rematerialize.h): one copy of a cheap elementwise node per reader.
#include "compiler/passes/rematerialize.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "compiler/kernel/lower.h"
#include "ops/core/apply.h"
#include "ops/elemwise/elemwise.h"

namespace tgc {

namespace {

constexpr const char* kName = "rematerialize";
// Rounds of the whole graph: each lets one more link of a chain follow its readers.
constexpr int kMaxRounds = 4;

bool cheap_kind(ScalarOpKind k) {
  switch (k) {
    case ScalarOpKind::Add:
    case ScalarOpKind::Sub:
    case ScalarOpKind::Mul:
    case ScalarOpKind::Neg:
    case ScalarOpKind::Square:
    case ScalarOpKind::Maximum:
    case ScalarOpKind::Minimum:
    case ScalarOpKind::Lt:
    case ScalarOpKind::Le:
    case ScalarOpKind::Gt:
    case ScalarOpKind::Ge:
    case ScalarOpKind::Cast:
      return true;
    default:
      return false;
  }
}

// Whether `in` is of `out`'s size: the same rank and no dim known to be 1 in one and not the
// other (a broadcast operand lacks dims or has 1s where the output does not).
bool full_size(const Type& in, const Type& out) {
  if (in.ndim() != out.ndim()) return false;
  for (int d = 0; d < in.ndim(); ++d)
    if ((in.shape[d] == 1) != (out.shape[d] == 1)) return false;
  return true;
}

bool cheap(const Node& n) {
  const auto* e = dynamic_cast<const Elemwise*>(&n.op());
  if (!e || n.num_outputs() != 1 || !cheap_kind(e->kind())) return false;
  for (int i = 0; i < static_cast<int>(n.inputs().size()); ++i)
    if (e->inplace_input(i) >= 0) return false;
  const Type& out = n.output_raw(0)->type();
  int full = 0;
  for (const VarPtr& in : n.inputs()) {
    if (!full_size(in->type(), out)) continue;
    // Reading the input must cost no more than reading the value: a bool mask computed from
    // floats stays written (a quarter of the bytes).
    if (dtype_size(in->type().dtype) > dtype_size(out.dtype)) return false;
    ++full;
  }
  return full <= 1;
}

}  // namespace

bool can_compute(const Node& reader, const Variable& v) {
  switch (fusion_role(reader)) {
    case FusionRole::Elementwise:
      return reader.num_outputs() == 1 && full_size(v.type(), reader.output_raw(0)->type());
    case FusionRole::Reduction:
      return !reader.inputs().empty() && reader.inputs()[0].get() == &v;
    default:
      return false;
  }
}

bool rematerialize(Graph& graph, const PassContext& ctx) {
  if (!ctx.enabled(kName)) return false;
  bool changed = false;
  for (int round = 0; round < kMaxRounds; ++round) {
    const auto clients = graph.clients();
    std::unordered_set<const Variable*> outputs;
    for (const VarPtr& o : graph.outputs()) outputs.insert(o.get());
    bool any = false;
    for (Node* n : graph.toposort()) {
      if (!cheap(*n)) continue;
      const Variable* v = n->output_raw(0);
      if (outputs.count(v)) continue;
      const auto it = clients.find(v);
      if (it == clients.end()) continue;
      // The readers, each node once (a node may read v at several positions).
      std::vector<Node*> readers;
      bool fusable = true;
      for (const auto& [reader, position] : it->second) {
        fusable = fusable && can_compute(*reader, *v);
        if (std::find(readers.begin(), readers.end(), reader) == readers.end()) readers.push_back(reader);
      }
      if (!fusable || readers.size() < 2 || readers.size() > kMaxRematerializedReaders) continue;
      std::string before;
      if (ctx.trace) before = n->describe();
      // The first reader keeps the node; each other gets a copy of its own.
      for (size_t r = 1; r < readers.size(); ++r) {
        const VarPtr copy = apply1(n->op_ptr(), n->inputs());
        copy->set_name(v->name());
        for (int i = 0; i < static_cast<int>(readers[r]->inputs().size()); ++i)
          if (readers[r]->inputs()[static_cast<size_t>(i)].get() == v) readers[r]->set_input(i, copy);
      }
      if (ctx.trace)
        ctx.trace->push_back({kName, kName, std::move(before), "one copy for each of " + std::to_string(readers.size()) + " readers"});
      any = changed = true;
    }
    if (!any) break;
  }
  return changed;
}

}  // namespace tgc
