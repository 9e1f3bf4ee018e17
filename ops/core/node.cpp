// Node construction and description.
#include "ops/core/node.h"

namespace tgc {

std::shared_ptr<Node> Node::create(std::shared_ptr<const Op> op, std::vector<VarPtr> inputs,
                                   const std::vector<Type>& output_types) {
  TGC_INTERNAL_CHECK(static_cast<int>(output_types.size()) == op->num_outputs(),
                     op->name() + " inferred the wrong number of output types");
  std::shared_ptr<Node> node(new Node());
  node->op_ = std::move(op);
  node->inputs_ = std::move(inputs);
  for (size_t i = 0; i < output_types.size(); ++i) {
    auto v = std::unique_ptr<Variable>(new Variable(Variable::Kind::Result, output_types[i], ""));
    v->owner_ = node.get();
    v->index_ = static_cast<int>(i);
    node->outputs_.push_back(std::move(v));
  }
  return node;
}

VarPtr Node::output(int i) const {
  TGC_INTERNAL_CHECK(i >= 0 && i < num_outputs(), "output index out of range");
  // A handle to an output shares ownership of its node; the node itself stays unchanged.
  return VarPtr(std::const_pointer_cast<Node>(shared_from_this()), outputs_[i].get());
}

std::string Node::describe() const {
  std::string lhs;
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (i) lhs += ", ";
    lhs += outputs_[i]->name().empty() ? "_" : outputs_[i]->name();
  }
  std::vector<std::string> labels;
  for (auto& in : inputs_) labels.push_back(in->label());
  std::string call = op_->describe_call(labels);
  bool any_named = false;
  for (auto& o : outputs_) any_named |= !o->name().empty();
  return any_named ? lhs + " = " + call : call;
}

}  // namespace tgc
