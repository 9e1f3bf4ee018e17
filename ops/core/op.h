// Op: one operation of the vocabulary, defined once — its static type rule, its concrete
// shape rule and its reference evaluation on host tensors (the ground truth of every test).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "runtime/export.h"
#include "runtime/tensor.h"
#include "runtime/type.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

class Node;
class Variable;

class Op {
 public:
  virtual ~Op() = default;

  // Theano-style display name with parameters, e.g. "Elemwise{exp}", "Sum{axis=[0]}".
  // Two ops of the same C++ class with the same name are the same op (see equals()).
  virtual std::string name() const = 0;
  // The family the per-op-class profile table groups by, e.g. "Elemwise", "CAReduce".
  virtual std::string op_class() const = 0;
  virtual int num_outputs() const { return 1; }
  // The function a user calls to build this op ("dot", "exp", "sum"), for error messages
  // that read like the user's code: "in p_1 = dot(x, w)".
  virtual std::string user_name() const = 0;
  // The call as a user reads it, given its inputs' labels: "dot(x, w)". Ops that stand for
  // several user calls (a fused Composite) print those: "add(a, b), sub(a, b)".
  virtual std::string describe_call(const std::vector<std::string>& input_labels) const;

  // Static output types from input types. Throws TypeError/ShapeError for bad operands;
  // the message names the op and the offending types, the caller adds the user's names.
  virtual std::vector<Type> infer_types(const std::vector<Type>& inputs) const = 0;
  // Concrete output shapes from concrete input shapes; throws ShapeError.
  virtual std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const = 0;

  // Reference evaluation on host tensors. `outputs` has num_outputs() entries; an entry
  // may hold the tensor this op produced on an earlier call (when allow_gc is off): reuse
  // it through ensure_output() or replace it. Inputs are never written.
  virtual void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const = 0;

  // Raises what perform() would raise for these inputs (on the host or a device), computing and
  // writing nothing. The executor asks it of every node that updates a shared variable in place
  // before the first of them runs, so that a failing call changes no variable
  // (compiler/update_in_place.h). The default checks the shapes (infer_shapes), which is all
  // that can fail for ops that raise on shapes only; an op that raises on values checks those
  // it can read without waiting for a device.
  virtual void validate(const std::vector<Tensor>& inputs) const;

  // Reverse-mode rule: the gradients of a scalar cost with respect to each input, given the
  // gradients with respect to each output (null where an output does not reach the cost).
  // Returns one entry per input, null where the input has no gradient (integer or boolean
  // inputs, indices, outputs that do not depend on it differentiably). Built from other ops
  // with apply(); ops/gradient/build.h has the helpers. The default throws TypeError
  // "<op> has no gradient"; grad() adds the path from the cost.
  virtual std::vector<std::shared_ptr<Variable>> grad(const Node& node,
                                                      const std::vector<std::shared_ptr<Variable>>& output_grads) const;

  // Transfer ops (host<->device copies) are timed as transfers in profiles.
  virtual bool is_transfer() const { return false; }
  // Collectives (ops/collective/: data moved between ranks) are timed as comm in profiles.
  virtual bool is_collective() const { return false; }

  // For output i, the input it may be a view of (Theano's view_map), or -1.
  virtual int view_of_input(int /*output*/) const { return -1; }

  // In-place computation (Theano's destroy_map). An op whose output `output` can be written
  // into the buffer of input `input` (same dtype and shape; each output element computed
  // only from the same element of its inputs, as elementwise ops are) returns the variant of
  // itself that does, or null when it cannot. The inplace pass asks this; the variant is
  // another op (its name says "inplace"), so the decision is visible in the graph.
  virtual std::shared_ptr<const Op> make_inplace(int /*output*/, int /*input*/) const { return nullptr; }
  // For output i of an op made by make_inplace, the input whose buffer it writes into, or
  // -1. The linker hands that input's tensor to outputs[i] when the input dies at this node;
  // perform() then calls ensure_output_inplace(), which checks that nothing else holds it.
  virtual int inplace_input(int /*output*/) const { return -1; }

  // Structural identity for CSE and kernel-cache keys: same class and same name().
  virtual bool equals(const Op& other) const;
  virtual size_t hash() const;
};

// Makes `slot` a C-contiguous tensor of dtype/shape, reusing its buffer when the buffer has
// exactly the bytes needed and nothing else holds it (so no caller's result is ever
// overwritten); the slot may hold any tensor (a previous result, or a buffer the memory plan
// handed over): only its buffer's size matters. The tensor lives on `device` (a buffer on
// another device is never reused).
Tensor& ensure_output(Tensor& slot, DType dtype, const Shape& shape, Device& device = host_device());

// ensure_output() for an op computing in place (see Op::inplace_input): `slot` may hold the
// tensor of an input the executor handed over. Keeps it when it is exactly the output
// (dtype, shape, C-contiguous from offset 0, the whole buffer) and every other holder of its
// buffer is an entry of `inputs` laid out exactly like it, at a position listed in
// `aliasable` (inputs the op reads element by element in step with its writes), besides the
// references its owner lets go of (Buffer::owner_refs: a shared variable's own). Otherwise
// behaves as ensure_output() (a fresh buffer when anything else holds this one).
Tensor& ensure_output_inplace(Tensor& slot, DType dtype, const Shape& shape,
                              const std::vector<Tensor>& inputs, const std::vector<int>& aliasable,
                              Device& device = host_device());

TGC_API_END
}  // namespace tgc
