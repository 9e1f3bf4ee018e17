// Fusion groups by scheduling: nodes are emitted in a topological order, and a group grows
// from a ready seed by admitting nodes whose producers are all emitted or already in the
// group. That makes every group convex by construction: a path that left the group and came
// back would pass through a node that depends on the group, which cannot have been emitted
// while the group was open. Each node is looked at a bounded number of times per group
// that touches it, so the whole search is about linear in the graph's size.
#include "compiler/passes/fusion_groups.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <queue>
#include <string>
#include <unordered_map>
#include <utility>

#include "compiler/branch_guards.h"
#include "compiler/passes/merge.h"
#include "compiler/passes/rematerialize.h"
#include "compiler/passes/shape_equivalence.h"
#include "ops/reduce/careduce.h"
#include "ops/reduce/float_reduce.h"
#include "runtime/error.h"

namespace tgc {

namespace {

// Where a value of a group lives: the loop space (elementwise groups, a reduction's
// prologue) or the output space (reductions and their epilogue).
enum class Phase : uint8_t { Loop, Out };
enum class State : uint8_t { Waiting, InGroup, Emitted };

// How many producers deep a candidate may pull not-yet-grouped producers in with it.
constexpr int kMaxPullDepth = 16;
// The fewest kernel values a node adds (an operation and its operand): a group that many
// values short of the limit is full.
constexpr int kMinNodeValues = 2;
// Candidates refused in a row because of a limit after which a group counts as full.
constexpr int kMaxLimitMisses = 32;
// Times a group is grown again with prologue values barred before it is split instead
// (growing again finds larger groups; splitting bounds the work on large graphs).
constexpr int kMaxRebuilds = 2;

// The same space: equal rank and the same dims statically known to be 1. Values of one
// space are computed once per element of the kernel's loop.
bool same_space(const Type& a, const Type& b) {
  if (a.ndim() != b.ndim()) return false;
  for (int d = 0; d < a.ndim(); ++d)
    if ((a.shape[d] == 1) != (b.shape[d] == 1)) return false;
  return true;
}

// `small` broadcasts into `big` (aligned on the right) without being of its space: a value
// that a kernel over `big` recomputes at every element where it is read.
bool smaller_space(const Type& small, const Type& big) {
  if (small.ndim() > big.ndim() || same_space(small, big)) return false;
  const int off = big.ndim() - small.ndim();
  for (int d = 0; d < small.ndim(); ++d)
    if (small.shape[d] != 1 && big.shape[d + off] == 1) return false;
  return true;
}

// 0-d constants become Constant values of the kernel rather than inputs.
bool folded_constant(const Variable* v) {
  return v->kind() == Variable::Kind::Constant && v->type().ndim() == 0;
}

struct NodeInfo {
  Node* node = nullptr;
  FusionRole role = FusionRole::None;
  int topo = 0;
  int pending = 0;  // input edges whose producer is neither emitted nor in the open group
  State state = State::Waiting;
  Phase phase = Phase::Loop;  // in the open group or the plan
  bool recomputed = false;    // a smaller value computed inside a larger space
  // Computes what another node computes (the same op on the same inputs): a copy the
  // rematerialize pass made for one reader, to be computed in that reader's kernel.
  bool copy = false;
  bool duplicate = false;  // shares its op and inputs with another node (a copy or not)
  bool anchored = false;      // reads a tensor or a reduction, not only constants
  // Was read outside the reduction group being grown from the current seed: not a prologue
  // of that group when it is grown again.
  bool no_prologue = false;
  std::vector<int> axes;  // Reduction: the reduced axes, explicit
  bool keepdims = false;
  int branch = 0;        // BranchGuards::guard_class: a group never mixes lazy branches
  bool ready = false;    // handed to the ready queues (once; again after a release)
  unsigned queued = 0;   // build stamp while in the worklist
  unsigned planned = 0;  // plan stamp while in the current plan
};

// The open group's spaces and reduction.
struct GroupShape {
  bool reduction = false;
  Type loop;  // the loop space (of a reduction's input)
  const Variable* loop_var = nullptr;  // reduction groups: the first reduction's input
  Type out;   // reduction groups: the output space
  std::vector<int> axes;
  bool keepdims = false;
};

// What admitting one candidate brings in: the candidate and the producers it pulls along,
// in topological order, with the group's shape afterwards (a reduction turns an elementwise
// group into a reduction group) and the resources used.
struct Plan {
  GroupShape shape;
  std::vector<int> add;
  std::vector<std::pair<const Variable*, Phase>> new_inputs;
  int new_values = 0;
};

class Fuser {
 public:
  Fuser(const Graph& graph, const FusionLimits& limits, const SharedShapeFacts* facts);
  std::vector<std::vector<int>> run();
  const NodeInfo& info(int n) const { return nodes_[n]; }
  int output_uses(const Variable* v) const {
    auto it = output_uses_.find(v);
    return it == output_uses_.end() ? 0 : it->second;
  }
  const std::vector<int>& readers(const Variable* v) const {
    static const std::vector<int> none;
    auto it = readers_.find(v);
    return it == readers_.end() ? none : it->second;
  }
  int producer(const Variable* v) const {
    if (!v->owner()) return -1;
    auto it = id_.find(v->owner());
    return it == id_.end() ? -1 : it->second;
  }

 private:
  const Variable* out_of(int n) const { return nodes_[n].node->output_raw(0); }
  bool joined(int n) const { return nodes_[n].state == State::InGroup || nodes_[n].planned == plan_stamp_; }
  bool only_read_by(int n, int reader) const;
  bool prologue_ok(int n) const;
  bool plan_node(int n, std::optional<Phase> need, int reader, int depth, Plan& plan);
  enum class Join { Joined, Refused, OverLimit };
  Join try_join(int n, bool seed);
  void commit(const Plan& plan);
  void enqueue(int n);
  std::optional<std::vector<std::vector<int>>> build(int seed);
  std::optional<std::vector<std::vector<int>>> split_prologue(const std::vector<int>& outside);
  bool open_group(int seed);
  int recomputing_reader(int n) const;
  void undo();
  void push_ready(int n);
  void emit_readers(int n);
  // Copies put back among the ready nodes once something else was emitted (run()).
  void requeue_deferred();
  bool reads_only_roots(int n) const;
  void release_reduction_prologues();

  // Whether a and b are known to differ in shape (their dims known, statically or from the
  // shared variables' shape facts, and unequal somewhere).
  bool provably_different(const Variable& a, const Variable& b);

  FusionLimits limits_;
  ShapeEquivalence shapes_;
  std::vector<NodeInfo> nodes_;
  std::unordered_map<const Node*, int> id_;
  std::unordered_map<const Variable*, std::vector<int>> readers_;  // one entry per edge
  std::unordered_map<const Variable*, int> output_uses_;

  // The open group.
  int group_branch_ = 0;
  Plan plan_;
  GroupShape shape_;
  std::vector<int> members_;
  std::unordered_map<const Variable*, Phase> inputs_;
  int values_ = 0;
  std::deque<int> work_;
  std::unordered_map<const Variable*, unsigned> expanded_;  // build stamp of sibling scans
  // Readers of each variable that were ready (every producer emitted) when last looked at:
  // the only siblings worth a look, so a tensor read all over a long graph is not scanned
  // in full by every group that reads it. Emitted entries are dropped as they are met.
  std::unordered_map<const Variable*, std::vector<int>> ready_readers_;
  unsigned build_stamp_ = 0;
  unsigned plan_stamp_ = 0;

  // Ready nodes: not fusable ones are emitted first, so a group finds as much as possible
  // of what it reads already computed; then reductions (a reduction seed can pull in its
  // epilogue's other operands), then elementwise nodes in graph order, and last the smaller
  // values that their reader may recompute.
  std::deque<int> ready_plain_;
  std::vector<int> deferred_;  // copies whose reader was not ready yet
  // Members taken back out of the last elementwise group (release_reduction_prologues), to be
  // grown right after it is emitted.
  std::vector<int> released_;
  std::priority_queue<std::pair<int, int>, std::vector<std::pair<int, int>>, std::greater<>> ready_fusable_;
};

bool Fuser::provably_different(const Variable& a, const Variable& b) {
  if (a.type().ndim() != b.type().ndim()) return true;
  const std::vector<DimId> da = shapes_.dims(a), db = shapes_.dims(b);
  for (size_t d = 0; d < da.size(); ++d) {
    const std::optional<int64_t> x = shapes_.known(da[d]), y = shapes_.known(db[d]);
    if (x && y && *x != *y) return true;
  }
  return false;
}

Fuser::Fuser(const Graph& graph, const FusionLimits& limits, const SharedShapeFacts* facts)
    : limits_(limits), shapes_(facts) {
  std::vector<Node*> order = graph.toposort();
  const BranchGuards guards(graph);
  nodes_.resize(order.size());
  for (size_t i = 0; i < order.size(); ++i) id_[order[i]] = static_cast<int>(i);
  for (auto& o : graph.outputs()) ++output_uses_[o.get()];
  for (size_t i = 0; i < order.size(); ++i) {
    NodeInfo& info = nodes_[i];
    Node* n = order[i];
    info.node = n;
    info.topo = static_cast<int>(i);
    info.branch = guards.guard_class(n);
    info.role = n->num_outputs() == 1 ? fusion_role(*n) : FusionRole::None;
    if (info.role == FusionRole::Reduction) {
      ReduceAxes axes;
      if (auto* r = dynamic_cast<const CAReduce*>(&n->op())) {
        axes = r->axes();
        info.keepdims = r->keepdims();
      } else if (auto* f = dynamic_cast<const FloatReduce*>(&n->op())) {
        axes = f->axes();
        info.keepdims = f->keepdims();
      } else {
        info.role = FusionRole::None;  // a reduction this pass does not know how to read
      }
      const int rank = n->inputs().empty() ? 0 : n->inputs()[0]->type().ndim();
      if (axes) info.axes = *axes;
      else for (int d = 0; d < rank; ++d) info.axes.push_back(d);
    }
    for (const VarPtr& v : n->inputs()) {
      readers_[v.get()].push_back(static_cast<int>(i));
      if (producer(v.get()) >= 0) ++info.pending;
    }
  }
  // Copies: elementwise nodes that share their op and inputs with another (merge ran before
  // fusion, so only rematerialize makes such nodes), each read only by nodes that can compute
  // it (rematerialize's condition). A set of duplicates where some reader cannot (a smaller
  // value read by larger nodes) keeps the recomputation of its own (recomputing_reader).
  std::unordered_map<size_t, std::vector<std::vector<int>>> buckets;  // by computation_hash
  for (NodeInfo& info : nodes_) {
    if (info.role != FusionRole::Elementwise) continue;
    std::vector<std::vector<int>>& bucket = buckets[computation_hash(*info.node)];
    auto same = std::find_if(bucket.begin(), bucket.end(), [&](const std::vector<int>& ids) {
      return same_computation(*nodes_[static_cast<size_t>(ids[0])].node, *info.node);
    });
    if (same == bucket.end()) bucket.push_back({info.topo});
    else same->push_back(info.topo);
  }
  for (auto& [hash, sets] : buckets)
    for (std::vector<int>& ids : sets) {
      if (ids.size() < 2) continue;
      bool copies = true;
      for (int id : ids) {
        const Variable* out = out_of(id);
        copies = copies && output_uses(out) == 0;
        for (int r : readers(out)) copies = copies && can_compute(*nodes_[static_cast<size_t>(r)].node, *out);
      }
      for (int id : ids) {
        nodes_[static_cast<size_t>(id)].copy = copies;
        nodes_[static_cast<size_t>(id)].duplicate = true;
      }
    }
}

bool Fuser::only_read_by(int n, int reader) const {
  const Variable* out = out_of(n);
  if (output_uses(out) > 0) return false;
  for (int r : readers(out))
    if (r != reader) return false;
  return true;
}

// A cheap necessary condition for being a reduction's prologue: the value must not be read
// by anything that cannot join the group (the full check runs when the group closes).
bool Fuser::prologue_ok(int n) const {
  if (nodes_[n].no_prologue) return false;
  const Variable* out = out_of(n);
  if (output_uses(out) > 0) return false;
  for (int r : readers(out))
    if (nodes_[r].role == FusionRole::None) return false;
  return true;
}

// Whether node n can join the open group (with the producers it needs pulled in before it),
// recording what it brings into `plan`. `need` is the phase its reader in the plan requires;
// `reader` the node that pulls it (a smaller value may be recomputed only for its one reader).
bool Fuser::plan_node(int n, std::optional<Phase> need, int reader, int depth, Plan& plan) {
  NodeInfo& info = nodes_[n];
  if (info.planned == plan_stamp_) return !need || info.phase == *need;
  if (info.state != State::Waiting || info.role == FusionRole::None) return false;
  if (info.branch != group_branch_) return false;  // another lazy branch (ifelse)
  Node* node = info.node;
  bool reads_loop = false, reads_out = false;
  for (const VarPtr& v : node->inputs()) {
    int p = producer(v.get());
    if (p >= 0 && joined(p)) (nodes_[p].phase == Phase::Loop ? reads_loop : reads_out) = true;
  }
  const Type& type = node->output_raw(0)->type();
  Phase phase = Phase::Out;
  bool recomputed = false;
  if (info.role == FusionRole::Elementwise) {
    if (reads_loop && reads_out) return false;  // an epilogue never reads the loop space
    if (reads_loop) phase = Phase::Loop;
    else if (reads_out) phase = Phase::Out;
    else if (need) phase = *need;
    else if (plan.shape.reduction && same_space(type, plan.shape.out)) phase = Phase::Out;
    else phase = Phase::Loop;
    if (need && phase != *need) return false;
    const Type& space = phase == Phase::Loop ? plan.shape.loop : plan.shape.out;
    if (!same_space(type, space)) {
      if (reader < 0 || !smaller_space(type, space) || !only_read_by(n, reader)) return false;
      recomputed = true;
    } else if (phase == Phase::Loop && plan.shape.reduction && !prologue_ok(n)) {
      return false;
    }
  } else {
    if (need && *need != Phase::Out) return false;
    const Variable* x = node->inputs().at(0).get();
    const int p = producer(x);
    const bool inside = p >= 0 && joined(p);
    if (inside && (nodes_[p].phase != Phase::Loop || nodes_[p].recomputed)) return false;
    if (!same_space(x->type(), plan.shape.loop)) return false;
    if (plan.shape.reduction) {
      if (info.axes != plan.shape.axes || info.keepdims != plan.shape.keepdims) return false;
      // Reductions of inputs known to differ in shape cannot share a loop (the kernel would
      // leave its fast path and, on a GPU, run on the host): the any() of each gradient that
      // loss scaling folds is one of 784x4096, one of 4096x4096 values.
      if (plan.shape.loop_var && provably_different(*x, *plan.shape.loop_var)) return false;
    } else {
      // The elementwise group becomes this reduction's prologue: only when the reduction
      // reads it, and when none of its values is needed outside.
      if (!inside) return false;
      for (const std::vector<int>* list : {&members_, &plan.add})
        for (int m : *list)
          if (!nodes_[m].recomputed && !prologue_ok(m)) return false;
      plan.shape.reduction = true;
      plan.shape.axes = info.axes;
      plan.shape.keepdims = info.keepdims;
      plan.shape.out = type;
      plan.shape.loop_var = x;
    }
  }

  // Producers that are neither computed yet nor in the group come along, or n cannot join.
  if (info.pending > 0) {
    if (depth >= kMaxPullDepth) return false;
    const Phase producer_phase = info.role == FusionRole::Reduction ? Phase::Loop : phase;
    for (const VarPtr& v : node->inputs()) {
      int p = producer(v.get());
      if (p < 0 || nodes_[p].state == State::Emitted || joined(p)) continue;
      if (!plan_node(p, producer_phase, n, depth + 1, plan)) return false;
    }
    // A producer pulled in for an earlier operand may sit in the other phase (a prologue
    // value pulled for a reduction that this epilogue node also reads directly).
    for (const VarPtr& v : node->inputs()) {
      int p = producer(v.get());
      if (p >= 0 && joined(p) && (nodes_[p].phase != producer_phase || (info.role == FusionRole::Reduction && nodes_[p].recomputed)))
        return false;
    }
  }

  // An epilogue value must come from the fold or from a tensor read in the output space:
  // one computed from constants alone would count as the prologue's (kernel_ir.h).
  bool anchored = info.role == FusionRole::Reduction;
  for (const VarPtr& v : node->inputs()) {
    int p = producer(v.get());
    anchored = anchored || (p >= 0 && joined(p) ? nodes_[p].anchored : !folded_constant(v.get()));
  }
  if (phase == Phase::Out && !anchored) return false;

  info.planned = plan_stamp_;
  info.phase = phase;
  info.recomputed = recomputed;
  info.anchored = anchored;
  plan.add.push_back(n);

  const Phase input_phase = info.role == FusionRole::Reduction ? Phase::Loop : phase;
  for (const VarPtr& v : node->inputs()) {
    int p = producer(v.get());
    if (p >= 0 && joined(p)) continue;
    if (folded_constant(v.get())) {
      ++plan.new_values;
      continue;
    }
    // A tensor is read in one space: a kernel input is either a loop or an epilogue load.
    auto it = inputs_.find(v.get());
    if (it != inputs_.end()) {
      if (it->second != input_phase) return false;
      continue;
    }
    bool known = false;
    for (auto& [var, ph] : plan.new_inputs) {
      if (var != v.get()) continue;
      if (ph != input_phase) return false;
      known = true;
    }
    if (!known) {
      plan.new_inputs.push_back({v.get(), input_phase});
      ++plan.new_values;  // its load
    }
  }
  // An elementwise node: its operation and at most one cast per operand. A reduction: the
  // cast to the accumulator, the fold and the conversion (or division) after it.
  plan.new_values += info.role == FusionRole::Elementwise ? 1 + static_cast<int>(node->inputs().size()) : 3;
  return true;
}

Fuser::Join Fuser::try_join(int n, bool seed) {
  ++plan_stamp_;
  Plan& plan = plan_;  // reused: its buffers keep their capacity
  plan.shape = shape_;
  plan.add.clear();
  plan.new_inputs.clear();
  plan.new_values = 0;
  if (!plan_node(n, std::nullopt, -1, 0, plan)) return Join::Refused;
  // A lone node always fits; the limits decide only whether a group may grow.
  if (!seed && (static_cast<int>(inputs_.size() + plan.new_inputs.size()) > limits_.max_inputs ||
                values_ + plan.new_values > limits_.max_values))
    return Join::OverLimit;
  commit(plan);
  return Join::Joined;
}

void Fuser::enqueue(int n) {
  NodeInfo& info = nodes_[n];
  if (info.state != State::Waiting || info.role == FusionRole::None || info.queued == build_stamp_) return;
  info.queued = build_stamp_;
  work_.push_back(n);
}

void Fuser::commit(const Plan& plan) {
  shape_ = plan.shape;
  for (auto& [v, ph] : plan.new_inputs) inputs_.emplace(v, ph);
  values_ += plan.new_values;
  for (int n : plan.add) {
    NodeInfo& info = nodes_[n];
    info.state = State::InGroup;
    info.planned = 0;
    members_.push_back(n);
    for (int r : readers(out_of(n))) {
      --nodes_[r].pending;
      enqueue(r);
    }
    // Siblings: other readers of the same full-size input, so the kernel reads it once.
    const Type& space = info.phase == Phase::Out && info.role == FusionRole::Elementwise ? shape_.out : shape_.loop;
    for (const VarPtr& v : info.node->inputs()) {
      int p = producer(v.get());
      if ((p >= 0 && nodes_[p].state == State::InGroup) || folded_constant(v.get())) continue;
      if (!same_space(v->type(), space)) continue;
      unsigned& stamp = expanded_[v.get()];
      if (stamp == build_stamp_) continue;
      stamp = build_stamp_;
      auto it = ready_readers_.find(v.get());
      if (it == ready_readers_.end()) continue;
      std::vector<int>& list = it->second;
      for (size_t k = 0; k < list.size();) {
        if (nodes_[list[k]].state == State::Emitted) {
          list[k] = list.back();
          list.pop_back();
          continue;
        }
        // A copy joins its reader's kernel, not its siblings' (recomputing_reader).
        if (!nodes_[list[k]].copy) enqueue(list[k]);
        ++k;
      }
    }
  }
}

bool Fuser::open_group(int seed) {
  ++build_stamp_;
  members_.clear();
  inputs_.clear();
  values_ = 0;
  work_.clear();
  const NodeInfo& s = nodes_[seed];
  group_branch_ = s.branch;
  shape_ = GroupShape();
  if (s.role == FusionRole::Elementwise) {
    shape_.loop = s.node->output_raw(0)->type();
  } else {
    shape_.reduction = true;
    shape_.loop = s.node->inputs().at(0)->type();
    shape_.loop_var = s.node->inputs().at(0).get();
    shape_.out = s.node->output_raw(0)->type();
    shape_.axes = s.axes;
    shape_.keepdims = s.keepdims;
  }
  return try_join(seed, true) == Join::Joined;
}

void Fuser::undo() {
  for (auto it = members_.rbegin(); it != members_.rend(); ++it) {
    nodes_[*it].state = State::Waiting;
    for (int r : readers(out_of(*it))) ++nodes_[r].pending;
  }
  members_.clear();
}

// Grows a group from `seed` until no candidate can join. A reduction kernel only outputs
// values computed after the fold, so when a prologue value is read outside the group, the
// values read outside are barred from the prologue and the group is grown again (without
// the reduction, they may gather other elementwise readers). After kMaxRebuilds such
// rounds, the group is split instead: the values read outside and the prologue nodes they
// read form an elementwise group emitted first, then the rest (both parts stay convex: the
// first holds all of its members' producers in the group) — unless that would leave the
// reduction's part with too many inputs.
//
// A seed that is not ready (a reader of smaller values, see recomputing_reader) may fail to
// open a group: then nothing changed and the result is empty.
std::optional<std::vector<std::vector<int>>> Fuser::build(int seed) {
  std::vector<int> barred;
  int rebuilds = 0;
  for (bool first = true;; first = false) {
    if (!open_group(seed)) {
      TGC_INTERNAL_CHECK(first && nodes_[seed].pending > 0,
                         "fusion could not start a group at " + nodes_[seed].node->describe());
      return std::nullopt;
    }
    // A group near a limit refuses most candidates: after a run of refusals it is full.
    int limit_misses = 0;
    while (!work_.empty() && values_ + kMinNodeValues <= limits_.max_values && limit_misses < kMaxLimitMisses) {
      int c = work_.front();
      work_.pop_front();
      nodes_[c].queued = 0;
      if (nodes_[c].state != State::Waiting) continue;
      Join j = try_join(c, false);
      limit_misses = j == Join::OverLimit ? limit_misses + 1 : j == Join::Joined ? 0 : limit_misses;
    }
    for (int c : work_) nodes_[c].queued = 0;
    work_.clear();
    std::vector<int> outside;
    if (shape_.reduction)
      for (int m : members_) {
        if (nodes_[m].role != FusionRole::Elementwise || nodes_[m].phase != Phase::Loop) continue;
        const Variable* out = out_of(m);
        bool read_outside = output_uses(out) > 0;
        for (int r : readers(out)) read_outside = read_outside || nodes_[r].state != State::InGroup;
        if (read_outside) outside.push_back(m);
      }
    if (outside.empty()) {
      for (int m : barred) nodes_[m].no_prologue = false;
      if (!shape_.reduction) release_reduction_prologues();
      return std::vector<std::vector<int>>{members_};
    }
    if (rebuilds >= kMaxRebuilds)
      if (auto parts = split_prologue(outside)) {
        for (int m : barred) nodes_[m].no_prologue = false;
        return parts;
      }
    ++rebuilds;
    for (int m : outside) nodes_[m].no_prologue = true;
    barred.insert(barred.end(), outside.begin(), outside.end());
    undo();
  }
}

// In a finished elementwise group, a value read only by reductions outside it (as their input:
// sum(dy * xhat) beside sum(dy), dy also read elsewhere) is better computed as those
// reductions' prologue than written here and read back. It is taken back out with the members
// only it reads (its closure), when everything the closure reads from the group is written by
// the group anyway; run() grows it right after this group, so that it joins its reductions and
// their siblings reading the same tensors share one kernel (a batch norm's backward sums: one
// pass over dy and x instead of a write and two reads).
void Fuser::release_reduction_prologues() {
  std::unordered_set<int> group(members_.begin(), members_.end()), released;
  auto only_read_by = [&](int m, const std::unordered_set<int>& set) {
    const Variable* out = out_of(m);
    if (output_uses(out) > 0 || readers(out).empty()) return false;
    for (int r : readers(out))
      if (!set.count(r)) return false;
    return true;
  };
  for (auto it = members_.rbegin(); it != members_.rend(); ++it) {
    const int m = *it;
    if (nodes_[m].role != FusionRole::Elementwise || released.count(m) || output_uses(out_of(m)) > 0) continue;
    bool to_reductions = !readers(out_of(m)).empty();
    for (int r : readers(out_of(m)))
      to_reductions = to_reductions && !group.count(r) && nodes_[r].role == FusionRole::Reduction &&
                      nodes_[r].node->inputs().at(0).get() == out_of(m);
    if (!to_reductions) continue;
    // The closure: m and the members read only by the closure, found in reverse order.
    std::unordered_set<int> closure{m};
    for (auto jt = it + 1; jt != members_.rend(); ++jt)
      if (nodes_[*jt].role == FusionRole::Elementwise && !released.count(*jt) && only_read_by(*jt, closure))
        closure.insert(*jt);
    // What the closure reads from the rest of the group must be written by the group anyway.
    bool written = closure.size() < group.size() - released.size();
    for (int c : closure)
      for (const VarPtr& v : nodes_[c].node->inputs()) {
        const int p = producer(v.get());
        if (p < 0 || !group.count(p) || closure.count(p) || released.count(p)) continue;
        bool read_outside = output_uses(v.get()) > 0;
        for (int r : readers(v.get())) read_outside = read_outside || !group.count(r);
        written = written && read_outside;
      }
    if (written) released.insert(closure.begin(), closure.end());
  }
  if (released.empty()) return;
  std::vector<int> kept;
  for (int m : members_) {
    if (!released.count(m)) {
      kept.push_back(m);
      continue;
    }
    nodes_[m].state = State::Waiting;
    nodes_[m].ready = false;  // queued again (push_ready) if it must wait for another released value
    for (int r : readers(out_of(m))) ++nodes_[r].pending;
    released_.push_back(m);
  }
  members_ = std::move(kept);
}

// The open reduction group split in two: `outside` (prologue values read outside it) with
// every prologue node they read, then the rest. Empty when the rest would read more
// tensors than the limit allows.
std::optional<std::vector<std::vector<int>>> Fuser::split_prologue(const std::vector<int>& outside) {
  ++plan_stamp_;  // marks the part split off
  std::vector<int> stack = outside;
  for (int m : outside) nodes_[m].planned = plan_stamp_;
  while (!stack.empty()) {
    int m = stack.back();
    stack.pop_back();
    for (const VarPtr& v : nodes_[m].node->inputs()) {
      int p = producer(v.get());
      if (p < 0 || nodes_[p].state != State::InGroup || nodes_[p].planned == plan_stamp_) continue;
      nodes_[p].planned = plan_stamp_;
      stack.push_back(p);
    }
  }
  std::vector<int> first, rest;
  for (int m : members_) (nodes_[m].planned == plan_stamp_ ? first : rest).push_back(m);
  std::unordered_map<const Variable*, bool> read;
  for (int m : rest)
    for (const VarPtr& v : nodes_[m].node->inputs()) {
      int p = producer(v.get());
      const bool inside = p >= 0 && nodes_[p].state == State::InGroup && nodes_[p].planned != plan_stamp_;
      if (!inside && !folded_constant(v.get())) read.emplace(v.get(), true);
    }
  for (int m : first) nodes_[m].planned = 0;
  ++plan_stamp_;
  if (static_cast<int>(read.size()) > limits_.max_inputs) return std::nullopt;
  return std::vector<std::vector<int>>{std::move(first), std::move(rest)};
}

// The one reader of `n` that could recompute it, or -1: n is a smaller elementwise value read
// by one larger elementwise node and nothing else, or a copy (rematerialize) or a value of
// roots only (reads_only_roots) read by one node that can compute it (can_compute). Such a value is not grown into a group of its own: its
// reader is tried as a seed first, pulling it in.
int Fuser::recomputing_reader(int n) const {
  const NodeInfo& info = nodes_[n];
  if (info.role != FusionRole::Elementwise) return -1;
  const Variable* out = out_of(n);
  const std::vector<int>& rs = readers(out);
  if (rs.empty() || output_uses(out) > 0) return -1;
  for (int r : rs)
    if (r != rs[0]) return -1;
  const NodeInfo& r = nodes_[rs[0]];
  if ((info.copy || reads_only_roots(n)) && can_compute(*r.node, *out)) return rs[0];
  if (r.role != FusionRole::Elementwise || !smaller_space(out->type(), out_of(rs[0])->type())) return -1;
  return rs[0];
}

void Fuser::push_ready(int n) {
  NodeInfo& info = nodes_[n];
  if (info.ready) return;
  info.ready = true;
  if (info.role == FusionRole::None) {
    ready_plain_.push_back(n);
    return;
  }
  for (const VarPtr& v : info.node->inputs())
    if (!folded_constant(v.get())) ready_readers_[v.get()].push_back(n);
  const int rank = info.role == FusionRole::Reduction ? 0 : recomputing_reader(n) < 0 ? 1 : 2;
  ready_fusable_.push({rank * static_cast<int>(nodes_.size()) + info.topo, n});
}

// Whether n reads no node's value (only inputs, shared variables and constants): ready from
// the start, such a value (a momentum's velocity * 0.9, a running mean * 0.9) would be a kernel
// of its own if grown then; its one reader computes it instead (recomputing_reader).
bool Fuser::reads_only_roots(int n) const {
  // Duplicates that are not copies (a test's unmerged graph) keep their sibling kernel.
  if (nodes_[n].duplicate) return false;
  for (const VarPtr& v : nodes_[n].node->inputs())
    if (v->owner()) return false;
  return nodes_[n].role == FusionRole::Elementwise;
}

void Fuser::requeue_deferred() {
  for (int n : deferred_) ready_fusable_.push({2 * static_cast<int>(nodes_.size()) + nodes_[n].topo, n});
  deferred_.clear();
}

void Fuser::emit_readers(int n) {
  for (int r : readers(out_of(n)))
    if (nodes_[r].state == State::Waiting && nodes_[r].pending == 0) push_ready(r);
}

std::vector<std::vector<int>> Fuser::run() {
  std::vector<std::vector<int>> groups;
  // Groups out: their members emitted, their readers' counts down.
  auto emit = [&](std::vector<std::vector<int>> grown) {
    for (std::vector<int>& members : grown) {
      for (int m : members) nodes_[m].state = State::Emitted;
      for (int m : members) emit_readers(m);
      groups.push_back(std::move(members));
    }
  };
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].pending == 0) push_ready(static_cast<int>(i));
  while (!ready_plain_.empty() || !ready_fusable_.empty() || !deferred_.empty()) {
    // Deferred copies come back when nothing else is left (the last entries popped may have
    // been stale ones, emitting nothing that would requeue them).
    if (ready_plain_.empty() && ready_fusable_.empty()) requeue_deferred();
    if (!ready_plain_.empty()) {
      int u = ready_plain_.front();
      ready_plain_.pop_front();
      if (nodes_[u].state != State::Waiting) continue;
      nodes_[u].state = State::Emitted;
      for (int k = 0; k < nodes_[u].node->num_outputs(); ++k)
        for (int r : readers(nodes_[u].node->output_raw(k)))
          if (--nodes_[r].pending == 0) push_ready(r);
      requeue_deferred();
      continue;
    }
    int seed = ready_fusable_.top().second;
    ready_fusable_.pop();
    if (nodes_[seed].state != State::Waiting) continue;
    std::optional<std::vector<std::vector<int>>> grown;
    if (int r = recomputing_reader(seed); r >= 0 && nodes_[r].state == State::Waiting) {
      grown = build(r);
      // A copy whose reader still waits for other values waits with it while other work is
      // ready (emitted alone now, it would be written and read back after all).
      if (!grown && (nodes_[seed].copy || reads_only_roots(seed)) && (!ready_plain_.empty() || !ready_fusable_.empty())) {
        deferred_.push_back(seed);
        continue;
      }
    }
    if (!grown) grown = build(seed);
    emit(std::move(*grown));
    // Released prologue values are grown now, before their reductions are seeded alone (a
    // group grown from one may release values in turn). One still waiting for another's
    // group is queued by emit_readers when that group is out.
    while (!released_.empty()) {
      const std::vector<int> released = std::move(released_);
      released_.clear();
      for (int r : released)
        if (nodes_[r].state == State::Waiting && nodes_[r].pending == 0) emit(*build(r));
    }
    requeue_deferred();
  }
  for (const NodeInfo& info : nodes_)
    TGC_INTERNAL_CHECK(info.state == State::Emitted, "fusion left " + info.node->describe() + " unscheduled");
  return groups;
}

}  // namespace

std::vector<FusedGroup> find_fusion_groups(const Graph& graph, const FusionLimits& limits,
                                          const SharedShapeFacts* facts) {
  Fuser fuser(graph, limits, facts);
  std::vector<std::vector<int>> groups = fuser.run();
  std::unordered_map<const Node*, int> member_of;
  for (size_t g = 0; g < groups.size(); ++g)
    for (int n : groups[g]) member_of[fuser.info(n).node] = static_cast<int>(g);

  std::vector<FusedGroup> out;
  out.reserve(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    std::vector<int>& ids = groups[g];
    std::sort(ids.begin(), ids.end(), [&](int a, int b) { return fuser.info(a).topo < fuser.info(b).topo; });
    FusedGroup fg;
    std::unordered_map<const Variable*, bool> seen;
    for (int id : ids) {
      Node* n = fuser.info(id).node;
      fg.nodes.push_back(n);
      for (const VarPtr& v : n->inputs()) {
        Node* owner = v->owner();
        auto it = owner ? member_of.find(owner) : member_of.end();
        if (it != member_of.end() && it->second == static_cast<int>(g)) continue;
        if (seen.emplace(v.get(), true).second) fg.inputs.push_back(v);
      }
    }
    for (Node* n : fg.nodes) {
      VarPtr o = n->output(0);
      bool outside = fuser.output_uses(o.get()) > 0;
      for (int r : fuser.readers(o.get())) {
        auto it = member_of.find(fuser.info(r).node);
        outside = outside || it == member_of.end() || it->second != static_cast<int>(g);
      }
      if (outside) fg.outputs.push_back(o);
    }
    out.push_back(std::move(fg));
  }
  return out;
}

}  // namespace tgc
