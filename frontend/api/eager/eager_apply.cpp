// eager() and eager_multi(): tensors in, a graph built over them, tensors out. Each operand
// enters the graph as a leaf (a concrete tensor) or as the recorded graph of a pending one;
// an elementwise result is returned pending (lazy fusion), anything else runs at once.
#include <tgc/eager.h>

#include <algorithm>

#include "frontend/api/eager/eager_expr.h"
#include "frontend/api/eager/eager_run.h"
#include "frontend/api/eager/eager_structure.h"
#include "ops/core/node.h"
#include "ops/elemwise/elemwise.h"
#include "ops/shape/dimshuffle.h"
#include "runtime/config.h"
#include "runtime/error.h"

namespace tgc {

namespace eager_impl {
namespace {

// A chain longer than this runs: its compiled call stays small, and a loop that never reads
// its result does not record without bound.
constexpr int kMaxRecordedNodes = 64;

bool records_lazily(const Op& op) {
  return dynamic_cast<const Elemwise*>(&op) != nullptr || dynamic_cast<const DimShuffle*>(&op) != nullptr;
}

// The graph being built for one eager operation: its leaves, its device, and the shapes of
// the variables the operands brought in.
class Builder {
 public:
  Var lift(const Tensor& t, size_t position) {
    if (!t.defined())
      throw ValueError("argument " + std::to_string(position + 1) + " of an eager operation is an undefined tensor",
                       "", "make it first (nd::zeros, Tensor::from_vector, a function's result)");
    Device& d = eager_device(t.device());
    if (!device_) {
      device_ = &d;
      first_ = position;
    } else if (device_ != &d) {
      throw ValueError("an eager operation on tensors of two devices: argument " + std::to_string(first_ + 1) +
                           " is on " + device_->name() + ", argument " + std::to_string(position + 1) + " on " +
                           d.name(),
                       "", "move one of them first: to_device(x, device(\"" + device_->name() + "\")) or x.to_host()");
    }
    Var expr;
    std::vector<Leaf> leaves;
    int nodes = 0;
    if (auto* e = dynamic_cast<EagerExpr*>(t.pending_value().get()); e && e->recorded(expr, leaves, nodes)) {
      for (Leaf& leaf : leaves)
        if (!has_leaf(leaf.var.get())) leaves_.push_back(std::move(leaf));
      nodes_ += nodes;
      shapes_.emplace_back(expr.ptr().get(), t.shape());
      return expr;
    }
    const Tensor& value = t.eval();
    // The same tensor twice (a * a) is one leaf. A leaf a pending operand brought in has no
    // shape entry yet (where(a > 0, a, b) reads a both ways): it gets one here.
    for (const Leaf& leaf : leaves_)
      if (leaf.value.shares_buffer(value) && leaf.value.offset() == value.offset() && leaf.value.shape() == value.shape() &&
          leaf.value.strides() == value.strides() && leaf.value.dtype() == value.dtype()) {
        if (!shape_entry(leaf.var.get())) shapes_.emplace_back(leaf.var.get(), value.shape());
        return Var(leaf.var);
      }
    leaves_.push_back(make_leaf(value, leaves_.size()));
    shapes_.emplace_back(leaves_.back().var.get(), value.shape());
    return Var(leaves_.back().var);
  }

  // The nodes `outputs` added on top of the operands, in an order where inputs come first;
  // empty when an output is an operand itself.
  std::vector<const Node*> new_nodes(const std::vector<Var>& outputs) const {
    std::vector<const Node*> order;
    // Depth first without recursion: (node, whether its inputs were pushed).
    std::vector<std::pair<const Node*, bool>> stack;
    auto push = [&](const Variable* v) {
      if (v->kind() != Variable::Kind::Result || shape_entry(v)) return;
      if (std::find(order.begin(), order.end(), v->owner()) == order.end()) stack.emplace_back(v->owner(), false);
    };
    for (const Var& out : outputs) push(out.ptr().get());
    while (!stack.empty()) {
      auto& [node, expanded] = stack.back();
      if (std::find(order.begin(), order.end(), node) != order.end()) {
        stack.pop_back();
      } else if (expanded) {
        order.push_back(node);
        stack.pop_back();
      } else {
        expanded = true;
        const Node* n = node;  // push() may move the stack's storage
        for (const VarPtr& in : n->inputs()) push(in.get());
      }
    }
    return order;
  }

  // The shape of `out`, computed from the operands' shapes through the nodes' shape rules
  // (NumPy's broadcasting errors surface here, at the operation, as in NumPy).
  Shape shape_of(const std::vector<const Node*>& nodes, const Var& out) {
    for (const Node* node : nodes) {
      std::vector<Shape> in;
      for (const VarPtr& v : node->inputs()) {
        if (v->kind() == Variable::Kind::Constant) {
          in.push_back(v->constant_value().shape());
        } else if (const Shape* known = shape_entry(v.get())) {
          in.push_back(*known);
        } else {
          reject_root(*v);  // the function read a Var that is not one of the operands
        }
      }
      const std::vector<Shape> shapes = node->op().infer_shapes(in);
      for (int k = 0; k < node->num_outputs(); ++k) shapes_.emplace_back(node->output_raw(k), shapes.at(k));
    }
    return *shape_entry(out.ptr().get());
  }

  Device& device() const { return device_ ? *device_ : host_device(); }
  const std::vector<Leaf>& leaves() const { return leaves_; }
  int nodes() const { return nodes_; }

 private:
  bool has_leaf(const Variable* v) const {
    for (const Leaf& leaf : leaves_)
      if (leaf.var.get() == v) return true;
    return false;
  }
  const Shape* shape_entry(const Variable* v) const {
    for (const auto& [var, shape] : shapes_)
      if (var == v) return &shape;
    return nullptr;
  }

  // Small (an operation's operands and the nodes it adds): vectors searched linearly cost
  // less than hash tables here, and eager operations are all overhead.
  Device* device_ = nullptr;
  size_t first_ = 0;
  std::vector<Leaf> leaves_;
  std::vector<std::pair<const Variable*, Shape>> shapes_;
  int nodes_ = 0;
};

}  // namespace
}  // namespace eager_impl

Tensor eager(const std::function<Var(const std::vector<Var>&)>& f, const std::vector<Tensor>& args) {
  using namespace eager_impl;
  Builder b;
  std::vector<Var> vars;
  vars.reserve(args.size());
  for (size_t i = 0; i < args.size(); ++i) vars.push_back(b.lift(args[i], i));
  const Var out = f(vars);
  if (!out.defined())
    throw ValueError("the function given to eager() returned an undefined Var", "", "return the result's expression");
  for (size_t i = 0; i < vars.size(); ++i)
    if (vars[i].ptr() == out.ptr()) return args[i];  // an operand, unchanged
  const std::vector<const Node*> nodes = b.new_nodes({out});
  bool lazy = global_config().eager_fusion && !nodes.empty();
  for (const Node* node : nodes) lazy = lazy && records_lazily(node->op());
  const int total = b.nodes() + static_cast<int>(nodes.size());
  if (lazy) {
    const Shape shape = b.shape_of(nodes, out);
    auto expr = std::make_shared<EagerExpr>(out, b.leaves(), b.device(), total);
    remember_recorded(expr);
    Tensor pending = Tensor::pending(expr, out.dtype(), shape);
    if (total > kMaxRecordedNodes) pending.eval();
    return pending;
  }
  return run_recorded({out}, b.leaves(), b.device()).at(0);
}

std::vector<Tensor> eager_multi(const std::function<std::vector<Var>(const std::vector<Var>&)>& f,
                                const std::vector<Tensor>& args) {
  using namespace eager_impl;
  Builder b;
  std::vector<Var> vars;
  for (size_t i = 0; i < args.size(); ++i) vars.push_back(b.lift(args[i], i));
  const std::vector<Var> outs = f(vars);
  for (const Var& out : outs)
    if (!out.defined())
      throw ValueError("the function given to eager_multi() returned an undefined Var", "",
                       "return the results' expressions");
  return run_recorded(outs, b.leaves(), b.device());
}

}  // namespace tgc
