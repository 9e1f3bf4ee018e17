// Graph cloning, ordering, clients and replacement.
#include "ops/core/graph.h"

#include <unordered_set>

namespace tgc {

bool interchangeable(const Type& a, const Type& b) {
  if (a.dtype != b.dtype || a.ndim() != b.ndim()) return false;
  for (int d = 0; d < a.ndim(); ++d)
    if (a.shape[d] != kUnknownDim && b.shape[d] != kUnknownDim && a.shape[d] != b.shape[d]) return false;
  return true;
}

namespace {

// Copies the nodes computing `outputs` into `mapping` (original -> copy), every node with
// its op, output types, names and placement. A variable already in `mapping` is read as
// mapped and not walked into; any other root (input, constant, shared) is mapped to
// root(v, output). Iterative post-order, so deep graphs do not overflow the stack.
template <typename RootFn>
std::vector<VarPtr> copy_expressions(const std::vector<VarPtr>& outputs,
                                     std::unordered_map<const Variable*, VarPtr>& mapping, RootFn&& root) {
  struct Frame { VarPtr var; size_t next_input; };
  std::vector<VarPtr> result;
  for (const VarPtr& out : outputs) {
    std::vector<Frame> stack{{out, 0}};
    while (!stack.empty()) {
      Frame& f = stack.back();
      const VarPtr v = f.var;
      if (mapping.count(v.get())) { stack.pop_back(); continue; }
      if (v->kind() != Variable::Kind::Result) {
        mapping[v.get()] = root(v, out);
        stack.pop_back();
        continue;
      }
      Node* owner = v->owner();
      if (f.next_input < owner->inputs().size()) {
        VarPtr in = owner->inputs()[f.next_input++];
        if (!mapping.count(in.get())) stack.push_back({in, 0});
        continue;
      }
      std::vector<VarPtr> new_inputs;
      for (auto& in : owner->inputs()) new_inputs.push_back(mapping.at(in.get()));
      std::vector<Type> types;
      for (int i = 0; i < owner->num_outputs(); ++i) types.push_back(owner->output_raw(i)->type());
      auto node = Node::create(owner->op_ptr(), std::move(new_inputs), types);
      node->set_placement(owner->placement());
      for (int i = 0; i < owner->num_outputs(); ++i) {
        VarPtr o = node->output(i);
        o->set_name(owner->output_raw(i)->name());
        mapping[owner->output_raw(i)] = o;
      }
      stack.pop_back();
    }
    result.push_back(mapping.at(out.get()));
  }
  return result;
}

}  // namespace

std::vector<VarPtr> clone_replace(const std::vector<VarPtr>& outputs,
                                  const std::unordered_map<const Variable*, VarPtr>& replacements) {
  std::unordered_map<const Variable*, VarPtr> mapping;
  for (const auto& [old, repl] : replacements) {
    TGC_INTERNAL_CHECK(interchangeable(old->type(), repl->type()),
                       "clone_replace changes type " + old->type().str() + " into " + repl->type().str() +
                           " for " + old->label());
    mapping[old] = repl;
  }
  return copy_expressions(outputs, mapping, [](const VarPtr& v, const VarPtr&) { return v; });
}

Graph Graph::clone_of(const std::vector<VarPtr>& inputs, const std::vector<VarPtr>& outputs) {
  Graph g;
  std::unordered_map<const Variable*, VarPtr> mapping;
  for (auto& in : inputs) {
    if (in->kind() != Variable::Kind::Input)
      throw InputError("'" + in->label() + "' cannot be a function input: it is a " +
                           (in->kind() == Variable::Kind::Shared     ? std::string("shared variable")
                            : in->kind() == Variable::Kind::Constant ? std::string("constant")
                                                                     : std::string("computed expression")),
                       "function()",
                       in->kind() == Variable::Kind::Shared
                           ? "shared variables are implicit inputs; leave them out of the list"
                           : "inputs must be symbolic variables made by scalar()/vector()/matrix()/tensor()");
    if (mapping.count(in.get()))
      throw InputError("input '" + in->label() + "' is listed twice", "function()",
                       "list each input once");
    auto copy = Variable::input(in->type(), in->name());
    mapping[in.get()] = copy;
    g.inputs_.push_back(copy);
  }

  // Constants and shared variables are kept (their values are shared, not copied); an input
  // that is not among `inputs` is the user's error.
  g.outputs_ = copy_expressions(outputs, mapping, [](const VarPtr& v, const VarPtr& output) -> VarPtr {
    if (v->kind() == Variable::Kind::Input)
      throw InputError("output '" + output->label() + "' depends on input '" + v->label() +
                           "', which is not among the function's inputs",
                       "function()", "add '" + v->label() + "' to the inputs of function()");
    return v;
  });
  return g;
}

std::vector<Node*> Graph::toposort() const {
  std::vector<Node*> order;
  std::unordered_set<Node*> done;
  struct Frame { Node* node; size_t next_input; };
  for (auto& out : outputs_) {
    if (!out->owner() || done.count(out->owner())) continue;
    std::vector<Frame> stack{{out->owner(), 0}};
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next_input < f.node->inputs().size()) {
        Node* producer = f.node->inputs()[f.next_input++]->owner();
        if (producer && !done.count(producer)) stack.push_back({producer, 0});
        continue;
      }
      if (done.insert(f.node).second) order.push_back(f.node);
      stack.pop_back();
    }
  }
  return order;
}

std::vector<Variable*> Graph::roots() const {
  std::vector<Variable*> out;
  std::unordered_set<Variable*> seen;
  for (auto& in : inputs_)
    if (seen.insert(in.get()).second) out.push_back(in.get());
  auto visit = [&](Variable* v) {
    if (!v->owner() && seen.insert(v).second) out.push_back(v);
  };
  for (Node* n : toposort())
    for (auto& in : n->inputs()) visit(in.get());
  for (auto& o : outputs_) visit(o.get());
  return out;
}

std::unordered_map<const Variable*, std::vector<std::pair<Node*, int>>> Graph::clients() const {
  std::unordered_map<const Variable*, std::vector<std::pair<Node*, int>>> result;
  for (Node* n : toposort())
    for (size_t i = 0; i < n->inputs().size(); ++i)
      result[n->inputs()[i].get()].push_back({n, static_cast<int>(i)});
  return result;
}

void Graph::replace(const Variable* old, VarPtr replacement) {
  TGC_INTERNAL_CHECK(interchangeable(old->type(), replacement->type()),
                     "replace changes type " + old->type().str() + " into " +
                         replacement->type().str() + " for " + old->label());
  for (Node* n : toposort())
    for (size_t i = 0; i < n->inputs().size(); ++i)
      if (n->inputs()[i].get() == old) n->set_input(static_cast<int>(i), replacement);
  for (auto& o : outputs_)
    if (o.get() == old) o = replacement;
}

void Graph::set_output(size_t i, VarPtr v) {
  TGC_INTERNAL_CHECK(i < outputs_.size(), "set_output: no output " + std::to_string(i));
  TGC_INTERNAL_CHECK(interchangeable(outputs_[i]->type(), v->type()),
                     "set_output changes type " + outputs_[i]->type().str() + " into " +
                         v->type().str() + " for " + outputs_[i]->label());
  outputs_[i] = std::move(v);
}

std::string Graph::str() const {
  std::unordered_map<const Variable*, std::string> names;
  int counter = 0;
  auto name_of = [&](const Variable* v) -> std::string {
    if (auto it = names.find(v); it != names.end()) return it->second;
    std::string n = !v->name().empty() ? v->name()
                    : v->kind() == Variable::Kind::Result ? "t" + std::to_string(counter++)
                                                          : v->label();
    names[v] = n;
    return n;
  };
  std::string out;
  for (Node* n : toposort()) {
    std::string lhs;
    for (int i = 0; i < n->num_outputs(); ++i) lhs += (i ? ", " : "") + name_of(n->output_raw(i));
    std::string args;
    for (size_t i = 0; i < n->inputs().size(); ++i) args += (i ? ", " : "") + name_of(n->inputs()[i].get());
    out += lhs + " = " + n->op().name() + "(" + args + ")\n";
  }
  return out;
}

}  // namespace tgc
