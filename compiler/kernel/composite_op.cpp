// Composite: a fused group as one graph node. Types come from the same static broadcasting
// the unfused ops apply, shapes and values from the Kernel IR interpreter.
#include "compiler/kernel/composite_op.h"

#include <fmt/format.h>

#include "compiler/kernel/interpreter.h"
#include "compiler/kernel/reference_op.h"
#include "ops/core/apply.h"
#include "ops/core/graph.h"
#include "ops/elemwise/broadcast.h"
#include "runtime/error.h"

namespace tgc {

Composite::Composite(Kernel kernel) : kernel_(std::move(kernel)) { kernel_.validate(); }

std::string Composite::name() const { return "Composite{" + kernel_.expression_str() + "}"; }

std::vector<Type> Composite::infer_types(const std::vector<Type>& inputs) const {
  if (inputs.size() != kernel_.inputs.size())
    throw TypeError(fmt::format("{}: expects {} inputs, got {}", name(), kernel_.inputs.size(), inputs.size()), "",
                    "a fused node reads exactly the tensors its kernel was built for");
  for (size_t j = 0; j < inputs.size(); ++j) {
    const KernelInput& in = kernel_.inputs[j];
    if (inputs[j].dtype != in.dtype || inputs[j].ndim() != in.ndim)
      throw TypeError(fmt::format("{}: input {} is {}, the kernel reads a {} {}", name(), j, inputs[j].str(),
                                  dtype_name(in.dtype), rank_name(in.ndim)),
                      "", "a fused node reads exactly the tensors its kernel was built for");
  }
  // Value by value, as the unfused ops infer them.
  std::vector<std::vector<int64_t>> shape(kernel_.values.size());
  for (size_t i = 0; i < kernel_.values.size(); ++i) {
    const KernelValue& v = kernel_.values[i];
    switch (v.kind) {
      case KernelValue::Kind::Load: shape[i] = inputs[v.input].shape; break;
      case KernelValue::Kind::Constant: break;
      case KernelValue::Kind::Op: {
        std::vector<std::vector<int64_t>> args;
        for (int a : v.args) args.push_back(shape[a]);
        shape[i] = broadcast_static_shapes(args, std::string(scalar_op_name(v.op)));
        break;
      }
      case KernelValue::Kind::Reduce: {
        const int a = v.args[0];
        shape[i] = reference_op(kernel_, static_cast<int>(i))->infer_types({Type(kernel_.values[a].dtype, shape[a])}).at(0).shape;
        break;
      }
    }
  }
  std::vector<Type> out;
  for (const KernelOutput& o : kernel_.outputs) out.emplace_back(o.dtype, shape[o.value]);
  return out;
}

std::vector<Shape> Composite::infer_shapes(const std::vector<Shape>& inputs) const {
  return kernel_output_shapes(kernel_, inputs);
}

void Composite::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  run_kernel(kernel_, inputs, outputs);
}

std::vector<VarPtr> Composite::grad(const Node&, const std::vector<VarPtr>&) const {
  TGC_INTERNAL_CHECK(false, "the gradient of " + name() + " was asked for; fusion runs after differentiation");
  return {};
}

// == compares constants as numbers, so NaN constants would make a kernel unequal to itself
// and 0.0 equal to -0.0; the hash (bit patterns) separates the latter and the listing,
// which prints every field, matches the former.
bool Composite::equals(const Op& other) const {
  const auto* c = dynamic_cast<const Composite*>(&other);
  return c && kernel_.hash() == c->kernel_.hash() && (kernel_ == c->kernel_ || kernel_.str() == c->kernel_.str());
}

size_t Composite::hash() const { return static_cast<size_t>(kernel_.hash()); }

std::vector<VarPtr> make_composite(const FusedGroup& group) {
  LoweredGroup lowered = lower_group(group);
  auto op = std::make_shared<const Composite>(std::move(lowered.kernel));
  std::vector<VarPtr> outputs = tgc::apply(op, lowered.inputs);
  TGC_INTERNAL_CHECK(outputs.size() == group.outputs.size(), "a Composite has one output per group output");
  for (size_t k = 0; k < outputs.size(); ++k)
    TGC_INTERNAL_CHECK(interchangeable(group.outputs[k]->type(), outputs[k]->type()),
                       fmt::format("{} output {} is {}, the group output it replaces is {}", op->name(), k,
                                   outputs[k]->type().str(), group.outputs[k]->type().str()));
  return outputs;
}

}  // namespace tgc
