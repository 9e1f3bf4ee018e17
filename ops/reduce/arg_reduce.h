// Argmax / Argmin: the int64 index of the first largest / smallest element along one axis,
// or of the flattened tensor when no axis is given (NumPy's argmax/argmin, keepdims too).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ops/core/op.h"

namespace tgc {

enum class ArgKind { Argmax, Argmin };

class ArgReduce : public Op {
 public:
  // `axis` non-negative (normalize_axis first), or nullopt for the flattened tensor.
  ArgReduce(ArgKind kind, std::optional<int> axis, bool keepdims);

  ArgKind kind() const { return kind_; }
  const std::optional<int>& axis() const { return axis_; }
  bool keepdims() const { return keepdims_; }

  // "Argmax{axis=1}", "Argmin" (flattened), "Argmax{axis=0, keepdims=True}".
  std::string name() const override;
  std::string op_class() const override { return kind_ == ArgKind::Argmax ? "Argmax" : "Argmin"; }
  std::string user_name() const override { return kind_ == ArgKind::Argmax ? "argmax" : "argmin"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  // The first occurrence wins ties; a NaN beats every number (the first NaN's index is
  // returned), as in NumPy. An empty reduction is a ValueError.
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // Integer indices: null.
  std::vector<std::shared_ptr<Variable>> grad(const Node& node,
                                              const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 private:
  std::optional<std::vector<int>> reduce_axes(int ndim) const;
  void check_not_empty(int64_t reduced_count) const;
  ArgKind kind_;
  std::optional<int> axis_;
  bool keepdims_;
};

}  // namespace tgc
