// Lowering of a fused group to Kernel IR: inputs become loads (0-d constants are folded in),
// each Elemwise its operand casts plus one Op, each CAReduce/Mean a Reduce value; nodes that
// feed a reduction form the prologue, the rest of a reduction group its epilogue. Values are
// numbered as they are added, so a kernel holds no repeated subexpression.
//
// Half types (float16, bfloat16) are storage types here: a kernel loads them, computes in
// float32 and rounds once when it stores a half output (docs/precision.md). So a value
// whose graph dtype is half is carried as float32 (compute_dtype), reductions of halves
// accumulate in float32, and only a Cast to a half type rounds inside a kernel, because
// the user asked for that rounding.
#include "compiler/kernel/lower.h"

#include <fmt/format.h>

#include <bit>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "ops/elemwise/elemwise.h"
#include "ops/reduce/careduce.h"
#include "ops/reduce/mean.h"
#include "runtime/convert.h"
#include "runtime/error.h"

namespace tgc {

FusionRole fusion_role(const Node& node) {
  const Op& op = node.op();
  if (dynamic_cast<const Elemwise*>(&op)) return FusionRole::Elementwise;
  if (dynamic_cast<const CAReduce*>(&op) || dynamic_cast<const Mean*>(&op)) return FusionRole::Reduction;
  return FusionRole::None;
}

namespace {

[[noreturn]] void fail(const std::string& what) {
  throw InternalError("lower_group: " + what, "",
                      "this is a bug in tgc (fusion built a group the Kernel IR cannot express); please report it");
}

// What a reduction node folds, in Kernel IR terms.
struct Reduction {
  KernelReduceOp op;
  DType dtype;  // the result, which is also what the argument is accumulated in
  std::vector<int> axes;  // explicit, sorted
  bool keepdims;
  bool identity_when_empty = false;
};

KernelReduceOp kernel_reduce_op(ReduceKind kind) {
  switch (kind) {
    case ReduceKind::Sum: return KernelReduceOp::Sum;
    case ReduceKind::Prod: return KernelReduceOp::Prod;
    case ReduceKind::Max: return KernelReduceOp::Max;
    case ReduceKind::Min: return KernelReduceOp::Min;
    case ReduceKind::All: return KernelReduceOp::All;
    case ReduceKind::Any: return KernelReduceOp::Any;
  }
  return KernelReduceOp::Sum;
}

std::vector<int> explicit_axes(const ReduceAxes& axes, int ndim) {
  if (axes) return *axes;
  std::vector<int> all(ndim);
  for (int d = 0; d < ndim; ++d) all[d] = d;
  return all;
}

Reduction reduction_of(const Node& node) {
  const DType in = node.inputs().at(0)->type().dtype;
  const int ndim = node.inputs()[0]->type().ndim();
  if (const auto* r = dynamic_cast<const CAReduce*>(&node.op()))
    return {kernel_reduce_op(r->kind()), careduce_output_dtype(r->kind(), in), explicit_axes(r->axes(), ndim),
            r->keepdims(), r->identity_when_empty()};
  const auto& m = dynamic_cast<const Mean&>(node.op());
  // Mean of integers accumulates in floatX, its result dtype.
  return {KernelReduceOp::Mean, float_of(in, m.floatx()), explicit_axes(m.axes(), ndim), m.keepdims()};
}

// The dtype a kernel carries a value of graph dtype `t` in: float32 for the half types.
DType compute_dtype(DType t) { return is_half(t) ? DType::Float32 : t; }

// A Constant value of `dtype` holding `v` (a value of the C++ type of dtype).
template <typename T>
KernelValue constant_value(T v) {
  KernelValue c;
  c.kind = KernelValue::Kind::Constant;
  c.dtype = dtype_of<T>;
  if constexpr (is_float_type_v<T>) {
    c.constant = static_cast<double>(v);
  } else {
    c.int_constant = static_cast<int64_t>(v);
    c.constant = static_cast<double>(c.int_constant);
  }
  return c;
}

// Which side of the reduction each node of the group lives on.
enum class Side { Prologue, Reduce, Epilogue };

class Lowering {
 public:
  explicit Lowering(const FusedGroup& group) : group_(group) {}

  LoweredGroup run() {
    if (group_.nodes.empty()) fail("the group has no nodes");
    if (group_.outputs.empty()) fail("the group has no outputs");
    classify_nodes();
    set_loop_rank();
    add_inputs();
    for (Node* node : group_.nodes) lower_node(*node);
    for (const VarPtr& out : group_.outputs) {
      auto it = value_of_.find(out.get());
      if (it == value_of_.end() || !produced_.count(out.get()))
        fail(fmt::format("output {} is not computed by the group", out->label()));
      if (reduction_ && side_of(out.get()) == Side::Prologue)
        fail(fmt::format("output {} is computed before the reduction", out->label()));
      const DType dtype = out->type().dtype;
      kernel_.outputs.push_back({convert(it->second, dtype), dtype});  // rounds a half output
    }
    drop_unused();
    kernel_.validate();
    return {std::move(kernel_), std::move(inputs_)};
  }

 private:
  Side side_of(const Variable* v) const {
    auto it = side_.find(v->owner());
    return it == side_.end() ? Side::Prologue : it->second;
  }

  // Prologue: nodes with a path to a reduction's input. Epilogue: the other elementwise
  // nodes of a reduction group (they read reductions or output-space inputs only).
  void classify_nodes() {
    std::unordered_set<const Node*> in_group;
    for (Node* n : group_.nodes) {
      if (!n) fail("null node");
      if (fusion_role(*n) == FusionRole::None) fail(fmt::format("{} cannot be fused", n->describe()));
      in_group.insert(n);
      reduction_ = reduction_ || fusion_role(*n) == FusionRole::Reduction;
    }
    std::unordered_map<const Node*, std::vector<const Node*>> readers;
    for (Node* n : group_.nodes)
      for (const VarPtr& in : n->inputs())
        if (in->owner() && in_group.count(in->owner())) readers[in->owner()].push_back(n);
    for (auto it = group_.nodes.rbegin(); it != group_.nodes.rend(); ++it) {
      const Node* n = *it;
      if (fusion_role(*n) == FusionRole::Reduction) {
        side_[n] = Side::Reduce;
        continue;
      }
      bool feeds_reduction = false;
      for (const Node* r : readers[n]) {
        auto s = side_.find(r);
        if (s == side_.end()) fail("the group's nodes are not in topological order");
        feeds_reduction = feeds_reduction || s->second != Side::Epilogue;
      }
      side_[n] = (feeds_reduction || !reduction_) ? Side::Prologue : Side::Epilogue;
    }
    for (Node* n : group_.nodes)
      if (side_[n] == Side::Epilogue)
        for (const VarPtr& in : n->inputs())
          if (in->owner() && in_group.count(in->owner()) && side_[in->owner()] == Side::Prologue)
            fail(fmt::format("{} is computed before the reduction and read after it by {}", in->label(),
                             n->describe()));
  }

  void set_loop_rank() {
    int rank = -1;
    for (Node* n : group_.nodes) {
      if (reduction_) {
        if (fusion_role(*n) != FusionRole::Reduction) continue;
        const Reduction r = reduction_of(*n);
        const int in_rank = n->inputs().at(0)->type().ndim();
        if (rank >= 0 && in_rank != rank) fail("the reductions of the group reduce inputs of different ranks");
        if (rank >= 0 && (r.axes != kernel_.reduce_axes || r.keepdims != kernel_.keepdims))
          fail("the reductions of the group fold different axes");
        rank = in_rank;
        kernel_.reduce_axes = r.axes;
        kernel_.keepdims = r.keepdims;
      } else {
        rank = std::max(rank, n->output_raw(0)->type().ndim());
      }
    }
    kernel_.ndim = rank;
  }

  // 0-d constants become Constant values; everything else a kernel input and its Load.
  void add_inputs() {
    std::unordered_set<const Variable*> read_before, read_after;
    for (Node* n : group_.nodes)
      for (const VarPtr& in : n->inputs())
        (side_[n] == Side::Epilogue ? read_after : read_before).insert(in.get());
    for (const VarPtr& in : group_.inputs) {
      if (value_of_.count(in.get())) continue;  // listed twice
      if (is_folded_constant(*in)) {
        value_of_[in.get()] = fold_constant(*in);
        continue;
      }
      if (read_before.count(in.get()) && read_after.count(in.get()))
        fail(fmt::format("input {} is read both before and after the reduction", in->label()));
      KernelInput ki;
      ki.dtype = in->type().dtype;
      ki.ndim = in->type().ndim();
      ki.static_shape = in->type().shape;
      ki.in_output_space = read_after.count(in.get()) > 0;
      KernelValue load;
      load.kind = KernelValue::Kind::Load;
      load.dtype = ki.dtype;
      load.input = static_cast<int>(kernel_.inputs.size());
      kernel_.inputs.push_back(std::move(ki));
      inputs_.push_back(in);
      value_of_[in.get()] = add(std::move(load));
    }
  }

  static bool is_folded_constant(const Variable& v) {
    return v.kind() == Variable::Kind::Constant && v.type().ndim() == 0;
  }

  int fold_constant(const Variable& v) {
    const Tensor& t = v.constant_value();
    return add(dispatch_dtype(t.dtype(), [&]<typename T>() { return constant_value<T>(*t.data<T>()); }));
  }

  // Appends v, or returns the value that already computes it: the same load, the same
  // constant (bit for bit), the same operation or reduction of the same values. So the
  // kernel computes each subexpression once, however many graph nodes or constants spelled
  // it — duplicates a pass made after the last merge (decompose_for_fusion, placement), or
  // equal constants that are distinct variables.
  int add(KernelValue v) {
    ValueKey key{v.kind, v.dtype, v.input, std::bit_cast<uint64_t>(v.constant), v.int_constant, v.op,
                 v.reduce_op, v.identity_when_empty, v.args};
    auto [it, inserted] = numbering_.try_emplace(std::move(key), static_cast<int>(kernel_.values.size()));
    if (inserted) kernel_.values.push_back(std::move(v));
    return it->second;
  }

  int value_of(const VarPtr& v) {
    auto it = value_of_.find(v.get());
    if (it != value_of_.end()) return it->second;
    if (is_folded_constant(*v)) return value_of_[v.get()] = fold_constant(*v);
    fail(fmt::format("{} is read by the group but is neither among its inputs nor computed in it", v->label()));
  }

  // `value` converted to `to`: itself, a folded constant, or a Cast value (one per pair).
  int convert(int value, DType to) {
    const KernelValue& v = kernel_.values[value];
    if (v.dtype == to) return value;
    auto [it, inserted] = casts_.try_emplace({value, to}, -1);
    if (!inserted) return it->second;
    if (v.kind == KernelValue::Kind::Constant) {
      // Exactly the conversion Elemwise applies to an operand: convert_value<To>(From).
      KernelValue c = dispatch_dtype(v.dtype, [&]<typename From>() {
        const From x = is_float_type_v<From> ? static_cast<From>(v.constant) : static_cast<From>(v.int_constant);
        return dispatch_dtype(to, [&]<typename To>() { return constant_value<To>(convert_value<To>(x)); });
      });
      return it->second = add(std::move(c));
    }
    KernelValue cast;
    cast.kind = KernelValue::Kind::Op;
    cast.op = ScalarOpKind::Cast;
    cast.dtype = to;
    cast.args = {value};
    return it->second = add(std::move(cast));
  }

  void lower_node(const Node& node) {
    if (node.num_outputs() != 1) fail(fmt::format("{} has {} outputs", node.describe(), node.num_outputs()));
    KernelValue v;
    if (const auto* e = dynamic_cast<const Elemwise*>(&node.op())) {
      std::vector<DType> dtypes;
      for (const VarPtr& in : node.inputs()) dtypes.push_back(in->type().dtype);
      const ScalarSignature sig = e->signature(dtypes);
      v.kind = KernelValue::Kind::Op;
      v.op = e->kind();
      // A Cast to a half type rounds (and reads its operand as it is); any other operation
      // on halves computes in float32.
      const bool rounds = e->kind() == ScalarOpKind::Cast;
      v.dtype = rounds ? sig.out : compute_dtype(sig.out);
      for (size_t k = 0; k < node.inputs().size(); ++k) {
        const DType operand = rounds ? sig.operands[k] : compute_dtype(sig.operands[k]);
        v.args.push_back(convert(value_of(node.inputs()[k]), operand));
      }
    } else {
      const Reduction r = reduction_of(node);
      v.kind = KernelValue::Kind::Reduce;
      v.reduce_op = r.op;
      v.identity_when_empty = r.identity_when_empty;
      v.dtype = compute_dtype(r.dtype);  // halves accumulate in float32
      v.args = {convert(value_of(node.inputs().at(0)), v.dtype)};
    }
    const Variable* out = node.output_raw(0);
    if (compute_dtype(out->type().dtype) != compute_dtype(v.dtype))
      fail(fmt::format("{} yields {}, lowering computed {}", node.describe(), dtype_name(out->type().dtype),
                       dtype_name(v.dtype)));
    value_of_[out] = add(std::move(v));
    produced_.insert(out);
  }

  // Removes values nothing reads (constants replaced by their converted copies, inputs
  // that only such values read) and renumbers what is left.
  void drop_unused() {
    const size_t n = kernel_.values.size();
    std::vector<bool> used(n, false);
    for (const KernelOutput& o : kernel_.outputs) used[o.value] = true;
    for (size_t i = n; i-- > 0;)
      if (used[i])
        for (int a : kernel_.values[i].args) used[a] = true;
    // Inputs keep the group's order; one whose load is gone is dropped with it.
    std::vector<int> new_input(kernel_.inputs.size(), -1);
    std::vector<KernelInput> kept_inputs;
    std::vector<VarPtr> kept_vars;
    std::vector<bool> input_used(kernel_.inputs.size(), false);
    for (size_t i = 0; i < n; ++i)
      if (used[i] && kernel_.values[i].kind == KernelValue::Kind::Load) input_used[kernel_.values[i].input] = true;
    for (size_t j = 0; j < input_used.size(); ++j) {
      if (!input_used[j]) continue;
      new_input[j] = static_cast<int>(kept_inputs.size());
      kept_inputs.push_back(kernel_.inputs[j]);
      kept_vars.push_back(inputs_[j]);
    }
    std::vector<int> new_index(n, -1);
    std::vector<KernelValue> kept;
    for (size_t i = 0; i < n; ++i) {
      if (!used[i]) continue;
      KernelValue v = kernel_.values[i];
      for (int& a : v.args) a = new_index[a];
      if (v.kind == KernelValue::Kind::Load) v.input = new_input[v.input];
      new_index[i] = static_cast<int>(kept.size());
      kept.push_back(std::move(v));
    }
    for (KernelOutput& o : kernel_.outputs) o.value = new_index[o.value];
    kernel_.values = std::move(kept);
    kernel_.inputs = std::move(kept_inputs);
    inputs_ = std::move(kept_vars);
  }

  const FusedGroup& group_;
  bool reduction_ = false;
  std::unordered_map<const Node*, Side> side_;
  std::unordered_map<const Variable*, int> value_of_;
  std::unordered_set<const Variable*> produced_;
  std::map<std::pair<int, DType>, int> casts_;
  using ValueKey = std::tuple<KernelValue::Kind, DType, int, uint64_t, int64_t, ScalarOpKind, KernelReduceOp, bool,
                              std::vector<int>>;
  std::map<ValueKey, int> numbering_;  // add()'s value numbering
  Kernel kernel_;
  std::vector<VarPtr> inputs_;
};

}  // namespace

LoweredGroup lower_group(const FusedGroup& group) { return Lowering(group).run(); }

}  // namespace tgc
