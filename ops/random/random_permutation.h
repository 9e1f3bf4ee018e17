// RandomPermutation{n}: a random ordering of 0 .. n-1 (int64) drawn from a random stream's
// state, Theano's RandomStreams.permutation; the second output is the advanced state. A
// Fisher-Yates shuffle whose step k (swapping position n-1-k with one of 0 .. n-1-k) takes
// its index from words 2(k%2), 2(k%2)+1 of Philox block counter + k/2, so every backend gives
// the same permutation. Sequential: it runs on the host (docs/random.md).
#pragma once

#include <cstdint>

#include "ops/core/op.h"

namespace tgc {

class RandomPermutation : public Op {
 public:
  explicit RandomPermutation(int64_t n);
  int64_t n() const { return n_; }

  std::string name() const override;
  std::string op_class() const override { return "RandomPermutation"; }
  std::string user_name() const override { return "permutation"; }
  int num_outputs() const override { return 2; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::vector<std::shared_ptr<Variable>> grad(
      const Node& node, const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 private:
  int64_t n_;
};

}  // namespace tgc
