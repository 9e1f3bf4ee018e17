// Node (Theano's Apply): one application of an Op to input variables, owning its outputs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ops/core/op.h"
#include "ops/core/variable.h"
#include "runtime/device.h"

namespace tgc {

class Node : public std::enable_shared_from_this<Node> {
 public:
  // Creates the node and its outputs of the given types (no type inference: see apply()).
  static std::shared_ptr<Node> create(std::shared_ptr<const Op> op, std::vector<VarPtr> inputs,
                                      const std::vector<Type>& output_types);

  const Op& op() const { return *op_; }
  const std::shared_ptr<const Op>& op_ptr() const { return op_; }
  const std::vector<VarPtr>& inputs() const { return inputs_; }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  // A handle to output i that keeps this node alive.
  VarPtr output(int i) const;
  Variable* output_raw(int i) const { return outputs_[i].get(); }

  // Where the node runs; thunks take their kind (cpu/gpu/transfer) from it.
  DeviceKind placement() const { return placement_; }
  void set_placement(DeviceKind p) { placement_ = p; }

  // Rewires input i (graph rewrites); the caller checks types.
  void set_input(int i, VarPtr v) { inputs_[i] = std::move(v); }

  // "p_1 = dot(x, w)": the node in the user's names, for error messages and profiles.
  std::string describe() const;

 private:
  Node() = default;
  std::shared_ptr<const Op> op_;
  std::vector<VarPtr> inputs_;
  std::vector<std::unique_ptr<Variable>> outputs_;
  DeviceKind placement_ = DeviceKind::Host;
};

}  // namespace tgc
