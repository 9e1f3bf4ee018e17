// merge: equal constants and equal nodes become one, in one topological walk.
#include "compiler/passes/merge.h"

#include <cstring>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "compiler/passes/graph_editor.h"

namespace tgc {

namespace {

size_t combine(size_t seed, size_t h) { return seed ^ (h + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2)); }

// "Elemwise{exp}(x)": a node in its inputs' labels, for the trace.
std::string describe(const Node& n) {
  std::string s = n.op().name() + "(";
  for (size_t i = 0; i < n.inputs().size(); ++i) s += (i ? ", " : "") + n.inputs()[i]->label();
  return s + ")";
}

// The constants seen so far, by value. Only constants up to kMergeConstantLimit elements take
// part; each is made contiguous once (the copy is what gets compared).
class ConstantTable {
 public:
  // The first constant equal to `c`, or `c` itself when it is the first of its value.
  VarPtr canonical(const VarPtr& c) {
    const Tensor& value = c->constant_value();
    if (!value.defined() || !value.on_host() || value.numel() > kMergeConstantLimit) return c;
    auto known = seen_.find(c.get());
    if (known != seen_.end()) return known->second;
    Tensor bytes = value.contiguous();
    std::string_view view(static_cast<const char*>(bytes.raw_data()), bytes.nbytes());
    size_t h = combine(std::hash<std::string_view>()(view), static_cast<size_t>(value.dtype()));
    for (int64_t d : value.shape()) h = combine(h, static_cast<size_t>(d));
    for (Entry& e : buckets_[h]) {
      if (e.bytes.dtype() != bytes.dtype() || e.bytes.shape() != bytes.shape()) continue;
      if (std::memcmp(e.bytes.raw_data(), bytes.raw_data(), bytes.nbytes()) != 0) continue;
      seen_[c.get()] = e.var;
      return e.var;
    }
    buckets_[h].push_back({c, bytes});
    seen_[c.get()] = c;
    return c;
  }

 private:
  struct Entry {
    VarPtr var;
    Tensor bytes;
  };
  std::unordered_map<size_t, std::vector<Entry>> buckets_;
  std::unordered_map<const Variable*, VarPtr> seen_;
};

void record(const PassContext& ctx, std::string before, std::string after) {
  if (ctx.trace) ctx.trace->push_back({"merge", "merge", std::move(before), std::move(after)});
}

// Replaces every equal constant read by the graph (by nodes or as an output) with the first.
bool merge_constants(GraphEditor& editor, const std::vector<Node*>& order, const PassContext& ctx) {
  ConstantTable table;
  bool changed = false;
  auto visit = [&](const VarPtr& v) {
    if (v->kind() != Variable::Kind::Constant) return;
    VarPtr keep = table.canonical(v);
    if (keep == v || !interchangeable(v->type(), keep->type())) return;
    if (ctx.trace) record(ctx, v->label(), keep->label());
    editor.replace(v.get(), keep);
    changed = true;
  };
  for (Node* n : order)
    for (size_t i = 0; i < n->inputs().size(); ++i) visit(VarPtr(n->inputs()[i]));
  for (size_t i = 0; i < editor.graph().outputs().size(); ++i) visit(VarPtr(editor.graph().outputs()[i]));
  return changed;
}

bool types_match(const Node& a, const Node& b) {
  for (int i = 0; i < a.num_outputs(); ++i)
    if (!interchangeable(a.output_raw(i)->type(), b.output_raw(i)->type())) return false;
  return true;
}

// In topological order every node's inputs are already canonical when it is visited, so a
// node equal to an earlier one is found by its op and its inputs' identities.
bool merge_nodes(GraphEditor& editor, const std::vector<Node*>& order, const PassContext& ctx) {
  std::unordered_map<size_t, std::vector<Node*>> buckets;
  bool changed = false;
  for (Node* n : order) {
    if (!editor.alive(n)) continue;
    std::vector<Node*>& bucket = buckets[computation_hash(*n)];
    Node* keep = nullptr;
    for (Node* c : bucket)
      if (editor.alive(c) && same_computation(*c, *n) && types_match(*c, *n)) {
        keep = c;
        break;
      }
    if (!keep) {
      bucket.push_back(n);
      continue;
    }
    std::string before = ctx.trace ? describe(*n) : std::string();
    for (int i = 0; i < n->num_outputs(); ++i) editor.replace(n->output_raw(i), keep->output(i));
    if (ctx.trace) record(ctx, std::move(before), describe(*keep));
    changed = true;
  }
  return changed;
}

}  // namespace

bool same_computation(const Node& a, const Node& b) {
  return a.num_outputs() == b.num_outputs() && a.inputs().size() == b.inputs().size() &&
         std::equal(a.inputs().begin(), a.inputs().end(), b.inputs().begin(),
                    [](const VarPtr& x, const VarPtr& y) { return x.get() == y.get(); }) &&
         a.op().equals(b.op());
}

size_t computation_hash(const Node& n) {
  size_t h = n.op().hash();
  for (const VarPtr& in : n.inputs()) h = combine(h, std::hash<const Variable*>()(in.get()));
  return h;
}

bool merge(Graph& graph, const PassContext& ctx) {
  GraphEditor editor(graph);
  const std::vector<Node*> order = editor.toposort();
  bool changed = merge_constants(editor, order, ctx);
  changed = merge_nodes(editor, order, ctx) || changed;
  return changed;
}

}  // namespace tgc
