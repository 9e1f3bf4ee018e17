// Op: one operation of the vocabulary, defined once — its static type rule, its concrete
// shape rule and its reference evaluation on host tensors (the ground truth of every test).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "runtime/tensor.h"
#include "runtime/type.h"

namespace tgc {

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

  // Static output types from input types. Throws TypeError/ShapeError for bad operands;
  // the message names the op and the offending types, the caller adds the user's names.
  virtual std::vector<Type> infer_types(const std::vector<Type>& inputs) const = 0;
  // Concrete output shapes from concrete input shapes; throws ShapeError.
  virtual std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const = 0;

  // Reference evaluation on host tensors. `outputs` has num_outputs() entries; an entry
  // may hold the tensor this op produced on an earlier call (when allow_gc is off): reuse
  // it through ensure_output() or replace it. Inputs are never written.
  virtual void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const = 0;

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

  // For output i, the input it may be a view of (Theano's view_map), or -1.
  virtual int view_of_input(int /*output*/) const { return -1; }

  // Structural identity for CSE and kernel-cache keys: same class and same name().
  virtual bool equals(const Op& other) const;
  virtual size_t hash() const;
};

// Makes `slot` a C-contiguous tensor of dtype/shape, reusing its buffer when it already has
// that layout and nothing else holds the buffer (so no caller's result is ever overwritten).
Tensor& ensure_output(Tensor& slot, DType dtype, const Shape& shape);

}  // namespace tgc
