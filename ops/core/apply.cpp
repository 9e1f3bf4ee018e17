// Building nodes with type inference and user-facing error context.
#include "ops/core/apply.h"

#include "runtime/rank_limit.h"

namespace tgc {

std::string describe_call(const Op& op, const std::vector<VarPtr>& inputs) {
  std::string call = op.user_name() + "(";
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i) call += ", ";
    call += inputs[i]->label();
  }
  return call + ")";
}

std::vector<VarPtr> apply(std::shared_ptr<const Op> op, std::vector<VarPtr> inputs) {
  for (auto& in : inputs) TGC_INTERNAL_CHECK(in != nullptr, op->name() + " given a null input");
  std::vector<Type> in_types;
  in_types.reserve(inputs.size());
  for (auto& in : inputs) in_types.push_back(in->type());
  std::vector<Type> out_types;
  try {
    out_types = op->infer_types(in_types);
    // Every op's result passes here, so no op (reshape, dimshuffle, alloc, ...) can make a
    // rank beyond the project's limit that later code would have to handle.
    for (const Type& t : out_types) check_rank(t.ndim(), "");
  } catch (Error& e) {
    e.set_where_if_empty(describe_call(*op, inputs));
    throw;
  }
  auto node = Node::create(std::move(op), std::move(inputs), out_types);
  std::vector<VarPtr> outs;
  for (int i = 0; i < node->num_outputs(); ++i) outs.push_back(node->output(i));
  return outs;
}

VarPtr apply1(std::shared_ptr<const Op> op, std::vector<VarPtr> inputs) {
  TGC_INTERNAL_CHECK(op->num_outputs() == 1, op->name() + " has several outputs");
  return apply(std::move(op), std::move(inputs))[0];
}

}  // namespace tgc
