// RandomDraw: one symbolic draw of a random stream (Theano's RandomStreams.uniform/normal/...):
// numbers drawn by Philox4x32-10 (ops/random/philox.h) from the stream's state, a small int64
// tensor [key, counter] held by a shared variable; the op's second output is the advanced
// state, which the draw's default update writes back (frontend/api/random.cpp), so each call
// draws new numbers.
//
// Inputs: {state} with a static size, or {state, like} taking like's shape at run time (like's
// elements are never read). Outputs: {draws, new state}. Element i of a draw is made from block
// counter + i / per_block only (docs/random.md), so every backend and thread layout agrees.
#pragma once

#include <cstdint>
#include <optional>

#include "ops/core/op.h"

namespace tgc {

enum class Distribution : uint8_t {
  Uniform,   // [0, 1): float32 from 24 bits, float64 from 53 bits
  Normal,    // standard normal, Box-Muller in double rounded once to the dtype
  Integers,  // [low, high): any integer dtype whose range holds both bounds
};

std::string_view distribution_name(Distribution d);

class RandomDraw : public Op {
 public:
  // `size` nullopt: the shape of the `like` input. low/high only for Integers.
  RandomDraw(Distribution dist, DType dtype, std::optional<Shape> size, int64_t low = 0, int64_t high = 0);

  Distribution distribution() const { return dist_; }
  DType dtype() const { return dtype_; }
  const std::optional<Shape>& size() const { return size_; }
  int64_t low() const { return low_; }
  int64_t high() const { return high_; }
  // Elements one Philox block (four words) makes for this draw: 4 or 2.
  int per_block() const;

  std::string name() const override;
  std::string op_class() const override { return "RandomDraw"; }
  std::string user_name() const override;
  int num_outputs() const override { return 2; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  void validate(const std::vector<Tensor>& inputs) const override;
  // A draw does not depend differentiably on anything: every input gradient is null.
  std::vector<std::shared_ptr<Variable>> grad(
      const Node& node, const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 private:
  Distribution dist_;
  DType dtype_;
  std::optional<Shape> size_;
  int64_t low_, high_;
};

// The checks of a random state's type every random op shares: an int64 vector of 2 elements.
void check_random_state_type(const Type& state, const std::string& op);
// The state's (key, counter) read from a host tensor (checked: int64[2]).
std::pair<uint64_t, uint64_t> read_random_state(const Tensor& state, const std::string& op);

}  // namespace tgc
