// scan_prune, scan_save_memory and scan_vectorize (compiler/scan/scan_rewrites.h).
#include "compiler/scan/scan_rewrites.h"

#include <unordered_map>
#include <unordered_set>

#include "compiler/scan/scan_op.h"
#include "compiler/passes/canonicalize.h"
#include "compiler/passes/merge.h"
#include "compiler/passes/shape_equivalence.h"
#include "ops/reduce/careduce.h"
#include "ops/core/apply.h"
#include "ops/core/node.h"
#include "ops/blas/dot.h"
#include "ops/elemwise/elemwise.h"
#include "ops/gradient/sum_to_like.h"
#include "ops/shape/dimshuffle.h"
#include "ops/shape/flatten.h"
#include "ops/shape/reshape.h"
#include "ops/subtensor/subtensor.h"

namespace tgc {

namespace {

const ScanOp* scan_of(const Node& n) { return dynamic_cast<const ScanOp*>(&n.op()); }

// The step's nodes in an order where each comes after its inputs' producers (the op's own
// nodes: rewrites map them by identity; placeholders and constants are roots).
std::vector<Node*> step_order(const ScanOp& op) {
  std::vector<Node*> order;
  std::unordered_set<const Node*> seen;
  std::vector<std::pair<Node*, bool>> stack;
  for (const VarPtr& r : op.inner_outputs())
    if (r->owner()) stack.push_back({r->owner(), false});
  while (!stack.empty()) {
    auto [n, expanded] = stack.back();
    stack.pop_back();
    if (expanded) {
      order.push_back(n);
      continue;
    }
    if (!seen.insert(n).second) continue;
    stack.push_back({n, true});
    for (const VarPtr& in : n->inputs())
      if (in->owner() && !seen.count(in->owner())) stack.push_back({in->owner(), false});
  }
  return order;
}

// The placeholders the given inner results read.
std::unordered_set<const Variable*> placeholders_read(const std::vector<VarPtr>& results) {
  std::unordered_set<const Variable*> read, seen;
  std::vector<const Variable*> stack;
  for (const VarPtr& r : results) stack.push_back(r.get());
  while (!stack.empty()) {
    const Variable* v = stack.back();
    stack.pop_back();
    if (!seen.insert(v).second) continue;
    if (v->kind() == Variable::Kind::Input) read.insert(v);
    if (v->owner())
      for (const VarPtr& in : v->owner()->inputs()) stack.push_back(in.get());
  }
  return read;
}

bool is_output(const Graph& g, const Variable* v) {
  for (const VarPtr& o : g.outputs())
    if (o.get() == v) return true;
  return false;
}

// Whether every reader of `v` reads only its last `k` rows: Subtensor{-j}, 1 <= j <= k.
bool read_at_last_rows(const Variable* v, int64_t k,
                       const std::unordered_map<const Variable*, std::vector<std::pair<Node*, int>>>& clients) {
  auto it = clients.find(v);
  if (it == clients.end() || it->second.empty()) return false;
  for (const auto& [n, pos] : it->second) {
    const auto* sub = dynamic_cast<const Subtensor*>(&n->op());
    if (!sub || pos != 0 || sub->spec().entries.size() != 1) return false;
    const IndexEntry& e = sub->spec().entries[0];
    if (e.kind != IndexEntry::Kind::Int || e.index >= 0 || e.index < -k) return false;
  }
  return true;
}

}  // namespace

bool scan_refine_types(Graph& graph, const PassContext& ctx) {
  bool changed = false;
  ShapeEquivalence shapes(&ctx.shared_shapes);
  for (Node* node : graph.toposort()) {
    const ScanOp* op = scan_of(*node);
    if (!op) continue;
    const std::shared_ptr<Node> alive = node->shared_from_this();
    const ScanSpec& spec = op->spec();
    // The dims each placeholder's outer value is known to have, `drop` leading dims skipped.
    auto known_dims = [&](const VarPtr& outer, int drop) {
      std::vector<int64_t> dims;
      const std::vector<DimId>& ids = shapes.dims(*outer);
      for (size_t d = static_cast<size_t>(drop); d < ids.size(); ++d) dims.push_back(shapes.known(ids[d]).value_or(kUnknownDim));
      return dims;
    };
    std::vector<std::vector<int64_t>> want(op->inner_inputs().size());
    for (size_t s = 0; s < spec.sequences.size(); ++s)
      for (size_t j = 0; j < spec.sequences[s].offsets.size(); ++j)
        want[spec.inner_sequence_input(static_cast<int>(s), static_cast<int>(j))] =
            known_dims(node->inputs()[spec.first_sequence_input() + s], 1);
    for (size_t s = 0; s < spec.states.size(); ++s)
      for (size_t j = 0; j < spec.states[s].taps.size(); ++j)
        want[spec.inner_state_input(static_cast<int>(s), static_cast<int>(j))] =
            known_dims(node->inputs()[spec.first_state_input() + s], spec.states[s].init_is_single ? 0 : 1);
    for (size_t a = 0; a < spec.accumulations.size(); ++a)
      for (size_t j = 0; j < spec.accumulations[a].offsets.size(); ++j)
        want[spec.inner_accumulation_input(static_cast<int>(a), static_cast<int>(j))] =
            known_dims(node->inputs()[spec.first_accumulation_input() + a], 1);
    for (int k = 0; k < spec.num_non_sequences; ++k)
      want[spec.inner_non_sequence_input(k)] = known_dims(node->inputs()[spec.first_non_sequence_input() + k], 0);
    std::unordered_map<const Variable*, VarPtr> mapped;
    std::vector<VarPtr> inner_in;
    bool refined = false;
    for (size_t i = 0; i < op->inner_inputs().size(); ++i) {
      const VarPtr& p = op->inner_inputs()[i];
      Type t = p->type();
      for (int d = 0; d < t.ndim() && d < static_cast<int>(want[i].size()); ++d)
        if (t.shape[d] == kUnknownDim && want[i][d] != kUnknownDim) {
          t.shape[d] = want[i][d];
          refined = true;
        }
      VarPtr q = t == p->type() ? p : Variable::input(t, p->name());
      mapped[p.get()] = q;
      inner_in.push_back(q);
    }
    // The step rebuilt over the refined placeholders (every node's type inferred again), then
    // canonicalized and merged: a gradient step's identity sum_to_likes go, and equal values
    // become one variable (two sums reading the same per-step value stack it once).
    const std::vector<Node*> order = step_order(*op);
    try {
      for (Node* n : order) {
        std::vector<VarPtr> ins;
        for (const VarPtr& in : n->inputs()) {
          auto it = mapped.find(in.get());
          ins.push_back(it != mapped.end() ? it->second : in);
        }
        std::vector<VarPtr> outs = tgc::apply(n->op_ptr(), ins);
        for (int k = 0; k < n->num_outputs(); ++k) mapped[n->output_raw(k)] = outs[k];
      }
      std::vector<VarPtr> inner_out;
      for (const VarPtr& r : op->inner_outputs()) inner_out.push_back(mapped.count(r.get()) ? mapped.at(r.get()) : r);
      Graph step = Graph::clone_of(inner_in, inner_out);
      PassContext inner_ctx = ctx;
      inner_ctx.trace = nullptr;
      inner_ctx.updates.clear();
      bool simplified = merge(step, inner_ctx);
      simplified = canonicalize(step, inner_ctx) || simplified;
      simplified = merge(step, inner_ctx) || simplified;
      if (!refined && !simplified) continue;
      std::vector<VarPtr> outs = tgc::apply(std::make_shared<ScanOp>(spec, step.inputs(), step.outputs()), node->inputs());
      for (int k = 0; k < node->num_outputs(); ++k)
        if (!interchangeable(node->output_raw(k)->type(), outs[k]->type())) throw ShapeError("refined type differs");
      for (int k = 0; k < node->num_outputs(); ++k) graph.replace(node->output_raw(k), outs[k]);
      changed = true;
    } catch (const Error&) {
      // A step that the known dims make invalid raises when it runs, as written.
    }
  }
  return changed;
}

bool scan_pushout_products(Graph& graph, const PassContext& ctx) {
  bool changed = false;
  ShapeEquivalence shapes(&ctx.shared_shapes);
  for (Node* node : graph.toposort()) {
    const ScanOp* op = scan_of(*node);
    if (!op) continue;
    const std::shared_ptr<Node> alive = node->shared_from_this();
    const ScanSpec& spec = op->spec();
    const auto& ii = op->inner_inputs();
    // dot(x[t + o], W) with W a non-sequence: the same product of every row at once, before the
    // loop, as one large product; the step reads its row. Needs the row and W's dims statically
    // (the reshapes around the product are written with them).
    std::unordered_map<const Variable*, std::pair<int, int>> seq_of;  // placeholder -> (sequence, tap)
    for (size_t s = 0; s < spec.sequences.size(); ++s)
      for (size_t j = 0; j < spec.sequences[s].offsets.size(); ++j)
        seq_of[ii[spec.inner_sequence_input(static_cast<int>(s), static_cast<int>(j))].get()] = {static_cast<int>(s), static_cast<int>(j)};
    std::unordered_map<const Variable*, int> nonseq_of;
    for (int k = 0; k < spec.num_non_sequences; ++k) nonseq_of[ii[spec.inner_non_sequence_input(k)].get()] = k;
    const Node* found = nullptr;
    std::unordered_set<const Node*> seen;
    std::vector<const Variable*> stack;
    for (const VarPtr& r : op->inner_outputs()) stack.push_back(r.get());
    while (!stack.empty() && !found) {
      const Node* n = stack.back()->owner();
      stack.pop_back();
      if (!n || !seen.insert(n).second) continue;
      for (const VarPtr& in : n->inputs()) stack.push_back(in.get());
      if (!dynamic_cast<const Dot*>(&n->op())) continue;
      const VarPtr& a = n->inputs()[0];
      const VarPtr& w = n->inputs()[1];
      if (!seq_of.count(a.get()) || !nonseq_of.count(w.get()) || a->type().ndim() != 2 || w->type().ndim() != 2) continue;
      found = n;
    }
    if (!found) continue;
    const auto [s, j] = seq_of.at(found->inputs()[0].get());
    const VarPtr& x = node->inputs()[spec.first_sequence_input() + s];
    const VarPtr& w = node->inputs()[spec.first_non_sequence_input() + nonseq_of.at(found->inputs()[1].get())];
    const std::vector<DimId>& xd = shapes.dims(*x);
    const std::vector<DimId>& wd = shapes.dims(*w);
    const auto rows = shapes.known(xd[1]), cols = shapes.known(xd[2]), out_cols = shapes.known(wd[1]);
    if (!rows || !cols || !out_cols) continue;
    VarPtr flat = apply1(std::make_shared<Reshape>(Shape{-1, *cols}), {x});
    VarPtr prod = apply1(std::make_shared<Dot>(), {flat, w});
    VarPtr y = apply1(std::make_shared<Reshape>(Shape{-1, *rows, *out_cols}), {prod});
    // The loop with y as one more sequence, read at the same offset, in place of the product.
    ScanSpec ns = spec;
    ScanSequence seq;
    seq.name = "dot(" + spec.sequences[s].name + ", " + w->label() + ")";
    seq.offsets = {spec.sequences[s].offsets[j]};
    seq.spans_steps = spec.sequences[s].spans_steps && seq.offsets[0] == spec.sequences[s].offsets.back();
    ns.sequences.push_back(seq);
    VarPtr row = Variable::input(found->output_raw(0)->type(), seq.name + "[t]");
    std::vector<VarPtr> inner_in;
    const int last_seq_input = spec.inner_sequence_input(static_cast<int>(spec.sequences.size()) - 1, 0) +
                               static_cast<int>(spec.sequences.back().offsets.size());
    for (int i = 0; i < static_cast<int>(ii.size()); ++i) {
      if (i == last_seq_input) inner_in.push_back(row);
      inner_in.push_back(ii[i]);
    }
    if (last_seq_input == static_cast<int>(ii.size())) inner_in.push_back(row);
    std::vector<VarPtr> inner_out = clone_replace(op->inner_outputs(), {{found->output_raw(0), row}});
    std::vector<VarPtr> node_in(node->inputs().begin(), node->inputs().end());
    node_in.insert(node_in.begin() + spec.first_state_input(), y);
    if (ns.steps_from_input >= spec.first_state_input()) ++ns.steps_from_input;
    try {
      std::vector<VarPtr> outs = tgc::apply(std::make_shared<ScanOp>(ns, inner_in, inner_out), node_in);
      for (int k = 0; k < node->num_outputs(); ++k) graph.replace(node->output_raw(k), outs[k]);
      changed = true;
    } catch (const Error&) {
      // Dims that do not fit: the product stays in the step, where it raises as written.
    }
  }
  return changed;
}

bool scan_prune(Graph& graph, const PassContext& /*ctx*/) {
  bool changed = false;
  for (Node* node : graph.toposort()) {
    const ScanOp* op = scan_of(*node);
    if (!op) continue;
    // Replacing its outputs may drop the node's last reader: it stays alive until done here.
    const std::shared_ptr<Node> alive = node->shared_from_this();
    const ScanSpec& spec = op->spec();
    const auto clients = graph.clients();
    auto used = [&](int k) {
      const Variable* v = node->output_raw(k);
      auto it = clients.find(v);
      return (it != clients.end() && !it->second.empty()) || is_output(graph, v);
    };
    const size_t S = spec.states.size(), A = spec.accumulations.size();
    const int N = spec.num_outputs_per_step;
    std::vector<bool> keep_state(S), keep_nit(N), keep_acc(A);
    for (size_t s = 0; s < S; ++s) keep_state[s] = used(static_cast<int>(s));
    for (int k = 0; k < N; ++k) keep_nit[k] = used(static_cast<int>(S) + k);
    for (size_t a = 0; a < A; ++a) keep_acc[a] = used(static_cast<int>(S) + N + static_cast<int>(a));
    // A kept result that reads a state's or an accumulation's rows keeps it: to a fixed point.
    for (bool grew = true; grew;) {
      grew = false;
      std::vector<VarPtr> results;
      for (size_t s = 0; s < S; ++s)
        if (keep_state[s]) results.push_back(op->inner_outputs()[s]);
      for (int k = 0; k < N; ++k)
        if (keep_nit[k]) results.push_back(op->inner_outputs()[S + k]);
      for (size_t a = 0; a < A; ++a)
        if (keep_acc[a])
          for (size_t j = 0; j < spec.accumulations[a].offsets.size(); ++j)
            results.push_back(op->inner_outputs()[spec.inner_accumulation_output(static_cast<int>(a), static_cast<int>(j))]);
      if (spec.has_until) results.push_back(op->inner_outputs().back());
      const auto read = placeholders_read(results);
      for (size_t s = 0; s < S; ++s)
        for (size_t j = 0; j < spec.states[s].taps.size() && !keep_state[s]; ++j)
          if (read.count(op->inner_inputs()[spec.inner_state_input(static_cast<int>(s), static_cast<int>(j))].get()))
            keep_state[s] = grew = true;
      for (size_t a = 0; a < A; ++a)
        for (size_t j = 0; j < spec.accumulations[a].offsets.size() && !keep_acc[a]; ++j)
          if (read.count(op->inner_inputs()[spec.inner_accumulation_input(static_cast<int>(a), static_cast<int>(j))].get()))
            keep_acc[a] = grew = true;
    }
    bool all = true;
    for (bool b : keep_state) all = all && b;
    for (bool b : keep_nit) all = all && b;
    for (bool b : keep_acc) all = all && b;
    bool any = false;
    for (bool b : keep_state) any = any || b;
    for (bool b : keep_nit) any = any || b;
    for (bool b : keep_acc) any = any || b;
    if (all || !any) continue;  // nothing to drop; or nothing read (dead code goes with the node)

    ScanSpec ns = spec;
    ns.states.clear();
    ns.accumulations.clear();
    ns.num_outputs_per_step = 0;
    std::vector<VarPtr> inner_in, inner_out, node_in;
    const auto& ii = op->inner_inputs();
    const auto& io = op->inner_outputs();
    const auto& in = node->inputs();
    // Node inputs and inner inputs in the layout's order, without the dropped groups.
    for (int i = 0; i < spec.first_state_input(); ++i) node_in.push_back(in[i]);
    for (size_t s = 0; s < spec.sequences.size(); ++s)
      for (size_t j = 0; j < spec.sequences[s].offsets.size(); ++j)
        inner_in.push_back(ii[spec.inner_sequence_input(static_cast<int>(s), static_cast<int>(j))]);
    for (size_t s = 0; s < S; ++s) {
      if (!keep_state[s]) continue;
      ns.states.push_back(spec.states[s]);
      node_in.push_back(in[spec.first_state_input() + s]);
      for (size_t j = 0; j < spec.states[s].taps.size(); ++j)
        inner_in.push_back(ii[spec.inner_state_input(static_cast<int>(s), static_cast<int>(j))]);
      inner_out.push_back(io[s]);
    }
    for (size_t a = 0; a < A; ++a)
      if (keep_acc[a]) {
        ns.accumulations.push_back(spec.accumulations[a]);
        node_in.push_back(in[spec.first_accumulation_input() + a]);
      }
    for (int k = 0; k < spec.num_non_sequences; ++k) {
      node_in.push_back(in[spec.first_non_sequence_input() + k]);
      inner_in.push_back(ii[spec.inner_non_sequence_input(k)]);
    }
    for (size_t a = 0; a < A; ++a)
      if (keep_acc[a])
        for (size_t j = 0; j < spec.accumulations[a].offsets.size(); ++j)
          inner_in.push_back(ii[spec.inner_accumulation_input(static_cast<int>(a), static_cast<int>(j))]);
    for (int k = 0; k < N; ++k)
      if (keep_nit[k]) {
        inner_out.push_back(io[S + k]);
        ++ns.num_outputs_per_step;
      }
    for (size_t a = 0; a < A; ++a)
      if (keep_acc[a])
        for (size_t j = 0; j < spec.accumulations[a].offsets.size(); ++j)
          inner_out.push_back(io[spec.inner_accumulation_output(static_cast<int>(a), static_cast<int>(j))]);
    if (spec.has_until) inner_out.push_back(io.back());

    auto pruned = std::make_shared<ScanOp>(ns, inner_in, inner_out);
    std::vector<VarPtr> outs = tgc::apply(pruned, node_in);
    int next = 0;
    for (size_t s = 0; s < S; ++s)
      if (keep_state[s]) graph.replace(node->output_raw(static_cast<int>(s)), outs[next++]);
    for (int k = 0; k < N; ++k)
      if (keep_nit[k]) graph.replace(node->output_raw(static_cast<int>(S) + k), outs[next++]);
    for (size_t a = 0; a < A; ++a)
      if (keep_acc[a]) graph.replace(node->output_raw(static_cast<int>(S) + N + static_cast<int>(a)), outs[next++]);
    changed = true;
  }
  return changed;
}

// h[k:][-j] (the user's result without the k initial rows, at its last rows) read as h[-j].
// They differ only after zero steps, where the first raises and the second reads the last
// initial row: the value the loop leaves (docs/control-flow.md#scan).
bool skip_initial_rows(Graph& graph, Node* loop) {
  const ScanOp* op = scan_of(*loop);
  bool changed = false;
  auto clients = graph.clients();
  for (size_t s = 0; s < op->spec().states.size(); ++s) {
    auto it = clients.find(loop->output_raw(static_cast<int>(s)));
    if (it == clients.end()) continue;
    for (const auto& [n, pos] : it->second) {
      const auto* sub = dynamic_cast<const Subtensor*>(&n->op());
      if (!sub || sub->spec().entries.size() != 1) continue;
      const IndexEntry& e = sub->spec().entries[0];
      if (e.kind != IndexEntry::Kind::Slice || e.start != op->spec().states[s].window() || e.stop || e.step) continue;
      auto readers = clients.find(n->output_raw(0));
      if (readers == clients.end()) continue;
      for (const auto& [r, rpos] : readers->second) {
        const auto* last = dynamic_cast<const Subtensor*>(&r->op());
        if (!last || rpos != 0 || last->spec().entries.size() != 1) continue;
        const IndexEntry& le = last->spec().entries[0];
        if (le.kind != IndexEntry::Kind::Int || le.index >= 0) continue;
        graph.replace(r->output_raw(0), apply1(r->op_ptr(), {loop->output(static_cast<int>(s))}));
        changed = true;
      }
    }
  }
  return changed;
}

bool scan_save_memory(Graph& graph, const PassContext& /*ctx*/) {
  bool changed = false;
  for (Node* node : graph.toposort()) {
    const ScanOp* op = scan_of(*node);
    if (!op) continue;
    // Replacing its outputs may drop the node's last reader: it stays alive until done here.
    const std::shared_ptr<Node> alive = node->shared_from_this();
    changed = skip_initial_rows(graph, node) || changed;
    const auto clients = graph.clients();
    ScanSpec ns = op->spec();
    bool any = false;
    for (size_t s = 0; s < ns.states.size(); ++s) {
      ScanState& st = ns.states[s];
      const Variable* h = node->output_raw(static_cast<int>(s));
      // Nobody reads it (a gradient loop's carry whose final value is not asked for), or only
      // its last rows.
      const auto readers = clients.find(h);
      const bool unread = readers == clients.end() || readers->second.empty();
      if (!st.keep_history || is_output(graph, h) || !(unread || read_at_last_rows(h, st.window(), clients))) continue;
      st.keep_history = false;
      any = true;
    }
    if (!any) continue;
    std::vector<VarPtr> outs = tgc::apply(op->with_spec(ns), node->inputs());
    for (int k = 0; k < node->num_outputs(); ++k) graph.replace(node->output_raw(k), outs[k]);
    changed = true;
  }
  return changed;
}

bool scan_vectorize(Graph& graph, const PassContext& /*ctx*/) {
  bool changed = false;
  for (Node* node : graph.toposort()) {
    const ScanOp* op = scan_of(*node);
    if (!op) continue;
    // Replacing its outputs may drop the node's last reader: it stays alive until done here.
    const std::shared_ptr<Node> alive = node->shared_from_this();
    const ScanSpec& spec = op->spec();
    // Steps independent of each other, over one sequence read at t (or several of one known
    // length), all of it: then step t's results are row t of the same computation on the
    // whole sequences.
    if (!spec.states.empty() || !spec.accumulations.empty() || spec.has_until || spec.n_steps_input ||
        spec.n_steps || spec.steps_from_input >= 0 || spec.truncate >= 0 || spec.sequences.empty() || spec.reverse)
      continue;
    bool ok = true;
    int64_t length = kUnknownDim;
    int row_rank = -1;
    for (size_t s = 0; s < spec.sequences.size() && ok; ++s) {
      ok = spec.sequences[s].offsets == std::vector<int>{0};
      const Type& t = node->inputs()[spec.first_sequence_input() + s]->type();
      if (row_rank < 0) row_rank = t.ndim() - 1;
      ok = ok && t.ndim() - 1 == row_rank;
      if (spec.sequences.size() > 1) {
        ok = ok && t.shape[0] != kUnknownDim && (length == kUnknownDim || length == t.shape[0]);
        length = t.shape[0];
      }
    }
    if (!ok) continue;
    std::unordered_map<const Variable*, VarPtr> outer;  // inner variable -> whole-sequence one
    std::unordered_set<const Variable*> per_step;       // inner variables that vary with t
    for (size_t s = 0; s < spec.sequences.size(); ++s) {
      const Variable* p = op->inner_inputs()[spec.inner_sequence_input(static_cast<int>(s), 0)].get();
      outer[p] = node->inputs()[spec.first_sequence_input() + s];
      per_step.insert(p);
    }
    for (int k = 0; k < spec.num_non_sequences; ++k) {
      const VarPtr& p = op->inner_inputs()[spec.inner_non_sequence_input(k)];
      if (p->type().ndim() > row_rank) ok = false;  // would not broadcast against the rows' leading axis
      outer[p.get()] = node->inputs()[spec.first_non_sequence_input() + k];
    }
    const std::vector<Node*> order = ok ? step_order(*op) : std::vector<Node*>{};
    for (Node* n : order) {
      if (!dynamic_cast<const Elemwise*>(&n->op())) ok = false;
      for (int k = 0; k < n->num_outputs() && ok; ++k) ok = n->output_raw(k)->type().ndim() <= row_rank;
      for (const VarPtr& in : n->inputs())
        if (in->kind() == Variable::Kind::Constant && in->type().ndim() > row_rank) ok = false;
    }
    for (const VarPtr& r : op->inner_outputs()) {
      ok = ok && r->type().ndim() == row_rank;
      // A result must vary with t (else it would lack the steps' axis): checked below.
    }
    if (!ok) continue;
    for (Node* n : order) {
      std::vector<VarPtr> ins;
      bool varies = false;
      for (const VarPtr& in : n->inputs()) {
        auto it = outer.find(in.get());
        ins.push_back(it != outer.end() ? it->second : in);
        varies = varies || per_step.count(in.get());
      }
      std::vector<VarPtr> outs = tgc::apply(n->op_ptr(), ins);
      for (int k = 0; k < n->num_outputs(); ++k) {
        outer[n->output_raw(k)] = outs[k];
        if (varies) per_step.insert(n->output_raw(k));
      }
    }
    for (const VarPtr& r : op->inner_outputs()) ok = ok && per_step.count(r.get()) && outer.count(r.get());
    if (!ok) continue;
    for (int k = 0; k < spec.num_outputs_per_step; ++k) {
      VarPtr v = outer.at(op->inner_outputs()[k].get());
      if (!interchangeable(node->output_raw(k)->type(), v->type())) {
        ok = false;
        break;
      }
    }
    if (!ok) continue;
    for (int k = 0; k < spec.num_outputs_per_step; ++k)
      graph.replace(node->output_raw(k), outer.at(op->inner_outputs()[k].get()));
    changed = true;
  }
  return changed;
}

namespace {

// a, b when `v` is dot(a.T, b) with a and b matrices (looking through a sum_to_like, which a
// product of the right shape passes unchanged).
std::optional<std::pair<VarPtr, VarPtr>> transposed_product(const VarPtr& v) {
  const Node* n = v->owner();
  if (n && dynamic_cast<const SumToLike*>(&n->op())) n = n->inputs()[0]->owner();
  if (!n || !dynamic_cast<const Dot*>(&n->op())) return std::nullopt;
  const Node* t = n->inputs()[0]->owner();
  const auto* ds = t ? dynamic_cast<const DimShuffle*>(&t->op()) : nullptr;
  if (!ds || ds->pattern() != std::vector<int>{1, 0}) return std::nullopt;
  const VarPtr& a = t->inputs()[0];
  const VarPtr& b = n->inputs()[1];
  if (a->type().ndim() != 2 || b->type().ndim() != 2 || a->type().dtype != b->type().dtype) return std::nullopt;
  return std::make_pair(a, b);
}

// How many times the inner graph of `results` reads `p`.
int reads_of(const std::vector<VarPtr>& results, const Variable* p) {
  int count = 0;
  std::unordered_set<const Node*> seen;
  std::vector<const Variable*> stack;
  for (const VarPtr& r : results) {
    if (r.get() == p) ++count;
    stack.push_back(r.get());
  }
  while (!stack.empty()) {
    const Variable* v = stack.back();
    stack.pop_back();
    const Node* n = v->owner();
    if (!n || !seen.insert(n).second) continue;
    for (const VarPtr& in : n->inputs()) {
      if (in.get() == p) ++count;
      stack.push_back(in.get());
    }
  }
  return count;
}

// (rows, m, k) stacked per-step matrices as one (k, rows * m) matrix: every step's columns.
VarPtr steps_as_columns(const VarPtr& stacked) {
  VarPtr moved = apply1(std::make_shared<DimShuffle>(std::vector<int>{2, 0, 1}), {stacked});
  return apply1(std::make_shared<Flatten>(2), {moved});
}

}  // namespace

namespace {

// When `v` is row t + o of a sequence whose length is exactly the steps plus its last offset
// (ScanSequence::spans_steps), its values over the steps are that sequence's rows [o, o + n):
// a slice, no per-step copy.
VarPtr stacked_sequence_rows(const ScanOp& op, const Node& node, const VarPtr& v) {
  const ScanSpec& spec = op.spec();
  for (size_t s = 0; s < spec.sequences.size(); ++s) {
    const ScanSequence& seq = spec.sequences[s];
    if (!seq.spans_steps) continue;
    for (size_t j = 0; j < seq.offsets.size(); ++j) {
      if (op.inner_inputs()[spec.inner_sequence_input(static_cast<int>(s), static_cast<int>(j))] != v) continue;
      const int64_t o = seq.offsets[j];
      const int64_t after = seq.offsets.back() - o;  // rows after o + n
      IndexSpec rows;
      rows.entries.push_back(IndexEntry::slice(o, after == 0 ? std::nullopt : std::optional<int64_t>(-after)));
      return apply1(std::make_shared<Subtensor>(rows), {node.inputs()[spec.first_sequence_input() + s]});
    }
  }
  return nullptr;
}

// One sum pushed out of one loop; false when no loop has one left.
bool pushout_one_sum(Graph& graph) {
  for (Node* node : graph.toposort()) {
    const ScanOp* op = scan_of(*node);
    if (!op) continue;
    // Replacing its outputs may drop the node's last reader: it stays alive until done here.
    const std::shared_ptr<Node> alive = node->shared_from_this();
    const ScanSpec& spec = op->spec();
    if (spec.truncate >= 0 || spec.has_until) continue;
    const auto clients = graph.clients();
    const size_t S = spec.states.size();
    const size_t N = static_cast<size_t>(spec.num_outputs_per_step);
    for (size_t s = 0; s < S; ++s) {
      const ScanState& st = spec.states[s];
      if (st.keep_history || st.taps != std::vector<int>{-1} || !st.init_is_single) continue;
      const VarPtr& p = op->inner_inputs()[spec.inner_state_input(static_cast<int>(s), 0)];
      const Node* add = op->inner_outputs()[s]->owner();
      const auto* ew = add ? dynamic_cast<const Elemwise*>(&add->op()) : nullptr;
      if (!ew || ew->kind() != ScalarOpKind::Add || add->inputs().size() != 2) continue;
      const int at = add->inputs()[0] == p ? 0 : add->inputs()[1] == p ? 1 : -1;
      if (at < 0 || reads_of(op->inner_outputs(), p.get()) != 1) continue;
      const VarPtr& term = add->inputs()[1 - at];
      auto ab = transposed_product(term);
      // Or sum(v, axis=0) of a per-step matrix v (a bias's gradient).
      const Node* red = term->owner();
      const auto* sum = red ? dynamic_cast<const CAReduce*>(&red->op()) : nullptr;
      const bool row_sum = sum && sum->kind() == ReduceKind::Sum && !sum->keepdims() && sum->axes() &&
                           *sum->axes() == std::vector<int>{0} && red->inputs()[0]->type().ndim() == 2 &&
                           red->inputs()[0]->type().dtype == p->type().dtype && p->type().ndim() == 1;
      if (!row_sum && (!ab || ab->first->type().dtype != p->type().dtype || p->type().ndim() != 2)) continue;
      const Variable* window = node->output_raw(static_cast<int>(s));
      if (is_output(graph, window) || !read_at_last_rows(window, 1, clients)) continue;

      // The loop without this state, with a and b as per-step outputs (a per-step output the
      // loop already has, as another sum's b often is, is read again rather than stacked twice).
      ScanSpec ns = spec;
      ns.states.erase(ns.states.begin() + static_cast<long>(s));
      const auto& ii = op->inner_inputs();
      const auto& io = op->inner_outputs();
      std::vector<VarPtr> nits(io.begin() + static_cast<long>(S), io.begin() + static_cast<long>(S + N));
      auto nit_of = [&](const VarPtr& v) {
        for (size_t k = 0; k < nits.size(); ++k)
          if (nits[k] == v) return k;
        nits.push_back(v);
        return nits.size() - 1;
      };
      if (row_sum) ab = std::make_pair(red->inputs()[0], red->inputs()[0]);
      VarPtr a_rows = stacked_sequence_rows(*op, *node, ab->first);
      VarPtr b_rows_seq = stacked_sequence_rows(*op, *node, ab->second);
      const size_t a_at = a_rows ? 0 : nit_of(ab->first), b_at = b_rows_seq ? 0 : nit_of(ab->second);
      ns.num_outputs_per_step = static_cast<int>(nits.size());
      std::vector<VarPtr> inner_in, inner_out, node_in;
      for (size_t i = 0; i < ii.size(); ++i)
        if (static_cast<int>(i) != spec.inner_state_input(static_cast<int>(s), 0)) inner_in.push_back(ii[i]);
      for (size_t i = 0; i < S; ++i)
        if (i != s) inner_out.push_back(io[i]);
      inner_out.insert(inner_out.end(), nits.begin(), nits.end());
      for (size_t i = S + N; i < io.size(); ++i) inner_out.push_back(io[i]);
      const int dropped = spec.first_state_input() + static_cast<int>(s);
      for (size_t i = 0; i < node->inputs().size(); ++i)
        if (static_cast<int>(i) != dropped) node_in.push_back(node->inputs()[i]);
      if (ns.steps_from_input > dropped) --ns.steps_from_input;
      std::vector<VarPtr> outs = tgc::apply(std::make_shared<ScanOp>(ns, inner_in, inner_out), node_in);
      const size_t added = nits.size() - N;

      // The sum over the steps: one product outside the loop, plus the initial value.
      VarPtr product;
      if (row_sum) {
        product = apply1(std::make_shared<CAReduce>(ReduceKind::Sum, std::vector<int>{0, 1}, false),
                         {a_rows ? a_rows : outs[S - 1 + a_at]});
      } else {
        VarPtr a_cols = steps_as_columns(a_rows ? a_rows : outs[S - 1 + a_at]);
        VarPtr b_rows = apply1(std::make_shared<DimShuffle>(std::vector<int>{1, 0}),
                               {steps_as_columns(b_rows_seq ? b_rows_seq : outs[S - 1 + b_at])});
        product = apply1(std::make_shared<Dot>(), {a_cols, b_rows});
      }
      const VarPtr& init = node->inputs()[dropped];
      VarPtr total = apply1(add->op_ptr(), at == 0 ? std::vector<VarPtr>{init, product} : std::vector<VarPtr>{product, init});
      for (const auto& [reader, pos] : clients.at(window)) graph.replace(reader->output_raw(0), total);
      for (size_t k = 0; k < static_cast<size_t>(node->num_outputs()); ++k) {
        if (k == s) continue;
        const size_t to = k < S ? (k < s ? k : k - 1) : k < S + N ? k - 1 : k - 1 + added;
        graph.replace(node->output_raw(static_cast<int>(k)), outs[to]);
      }
      return true;
    }
  }
  return false;
}

}  // namespace

bool scan_pushout_sums(Graph& graph, const PassContext& /*ctx*/) {
  bool changed = false;
  // Each rewrite replaces a loop node; a few sums per loop at most.
  for (int round = 0; round < 64 && pushout_one_sum(graph); ++round) changed = true;
  return changed;
}

}  // namespace tgc
