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

namespace {

// Whether running the kernel can raise (integer division by zero, a negative integer power):
// the compiled kernel then hands over to the interpreter, which must see the inputs intact.
bool may_raise(const Kernel& k) {
  for (const KernelValue& v : k.values) {
    if (v.kind != KernelValue::Kind::Op) continue;
    if (v.op != ScalarOpKind::FloorDiv && v.op != ScalarOpKind::Mod && v.op != ScalarOpKind::Pow) continue;
    for (int a : v.args)
      if (!is_float(k.values[a].dtype)) return true;
  }
  return false;
}

// Whether every load of input `input` is among the values output `output` is computed from.
// Then the store of that output depends on each load of the input at the element it writes:
// no compiler, whatever it assumes about aliasing (the LLVM operands are noalias, the
// C-family ones restrict), can move such a load after that store.
bool output_reads_every_load(const Kernel& k, int output, int input) {
  std::vector<bool> needed(k.values.size(), false);
  needed[k.outputs[output].value] = true;
  for (size_t i = k.values.size(); i-- > 0;)
    if (needed[i])
      for (int a : k.values[i].args) needed[a] = true;
  bool read = false;
  for (size_t i = 0; i < k.values.size(); ++i) {
    const KernelValue& v = k.values[i];
    if (v.kind != KernelValue::Kind::Load || v.input != input) continue;
    if (!needed[i]) return false;
    read = true;
  }
  return read;
}

}  // namespace

Composite::Composite(Kernel kernel, std::vector<int> inplace) : kernel_(std::move(kernel)), inplace_(std::move(inplace)) {
  kernel_.validate();
  TGC_INTERNAL_CHECK(inplace_.empty() || inplace_.size() == kernel_.outputs.size(),
                     "Composite: the inplace map needs one entry per output");
  for (int j : inplace_)
    TGC_INTERNAL_CHECK(j >= -1 && j < static_cast<int>(kernel_.inputs.size()), "Composite: no input to write in place");
}

std::string Composite::name() const {
  std::string s = "Composite{" + kernel_.expression_str() + "}";
  std::string pairs;
  for (size_t k = 0; k < inplace_.size(); ++k)
    if (inplace_[k] >= 0) pairs += fmt::format("{}o{}<-i{}", pairs.empty() ? "" : ", ", k, inplace_[k]);
  return pairs.empty() ? s : s + "{inplace=[" + pairs + "]}";
}

std::shared_ptr<const Op> Composite::make_inplace(int output, int input) const {
  const int nout = static_cast<int>(kernel_.outputs.size()), nin = static_cast<int>(kernel_.inputs.size());
  if (output < 0 || output >= nout || input < 0 || input >= nin) return nullptr;
  if (inplace_input(output) >= 0) return nullptr;
  // The output must read the input it overwrites. A renderer computes the outputs one after
  // the other and loads an operand when the first output needing it is computed (the LLVM
  // loop; a C compiler may reorder a restrict load past an unrelated store), so an output
  // that did not read the input could store into it before another output loads it: the
  // logistic-regression gradient's Composite{neg(i0), ..., sigmoid(i1)} wrote -y over the
  // product i1 before sigmoid(i1) read it. Reading it makes that output's store depend on
  // the input's one load at that element, which every other output then reuses.
  if (!output_reads_every_load(kernel_, output, input)) return nullptr;
  // An elementwise kernel overwrites an input of its loop space. A reduction overwrites only
  // an input of its output space (its epilogue's, of the output's rank): each output element's
  // epilogue runs once, by the one thread that then stores it, and loads that input at the
  // element before the store (backends/c_family/render_reduction.cpp, `epilogue`), so a
  // weights' update sum(x * g, 0) * a + w * b writes w where it reads it. A loop-space input
  // is read by many outputs' folds and is never overwritten. The CPU backend and the
  // interpreter give a reduction's outputs buffers of their own, which is correct too.
  const KernelInput& in = kernel_.inputs[input];
  const int space = kernel_.is_reduction() ? kernel_.output_ndim() : kernel_.ndim;
  if (in.in_output_space != kernel_.is_reduction() || in.ndim != space || in.dtype != kernel_.outputs[output].dtype)
    return nullptr;
  for (int64_t d : in.static_shape)
    if (d == 1) return nullptr;  // may be stretched: not read at the output's index
  for (int j : inplace_)
    if (j == input) return nullptr;
  if (may_raise(kernel_)) return nullptr;
  std::vector<int> map = inplace_.empty() ? std::vector<int>(nout, -1) : inplace_;
  map[output] = input;
  return std::make_shared<const Composite>(kernel_, std::move(map));
}

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
  run_kernel(kernel_, inputs, outputs, inplace_);
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
  return c && inplace_ == c->inplace_ && kernel_.hash() == c->kernel_.hash() &&
         (kernel_ == c->kernel_ || kernel_.str() == c->kernel_.str());
}

size_t Composite::hash() const {
  size_t h = static_cast<size_t>(kernel_.hash());
  for (int j : inplace_) h = h * 1000003u + static_cast<size_t>(j + 1);
  return h;
}

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
