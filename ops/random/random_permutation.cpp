// RandomPermutation: Fisher-Yates over Philox words (see the header for the layout).
#include "ops/random/random_permutation.h"

#include <fmt/format.h>

#include <numeric>
#include <utility>

#include "ops/core/node.h"
#include "ops/random/philox.h"
#include "ops/random/random_draw.h"
#include "runtime/error.h"

namespace tgc {

RandomPermutation::RandomPermutation(int64_t n) : n_(n) {
  if (n < 0)
    throw ValueError(fmt::format("permutation: n is {}", n), "", "give the number of elements to order, n >= 0");
}

std::string RandomPermutation::name() const { return fmt::format("RandomPermutation{{n={}}}", n_); }

std::vector<Type> RandomPermutation::infer_types(const std::vector<Type>& inputs) const {
  if (inputs.size() != 1)
    throw TypeError(fmt::format("permutation takes 1 input (the state), got {}", inputs.size()), "", "");
  check_random_state_type(inputs[0], "permutation");
  return {Type(DType::Int64, {n_}), Type(DType::Int64, {2})};
}

std::vector<Shape> RandomPermutation::infer_shapes(const std::vector<Shape>& inputs) const {
  if (inputs.size() != 1 || inputs[0] != Shape{2})
    throw ShapeError("permutation: the random state has shape " + shape_str(inputs.empty() ? Shape{} : inputs[0]) +
                         ", not (2,)",
                     "", "set the state's value to int64 [key, counter] (RandomStreams::seed does)");
  return {Shape{n_}, Shape{2}};
}

void RandomPermutation::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const auto [key, counter] = read_random_state(inputs.at(0), "permutation");
  Tensor& out = ensure_output(outputs[0], DType::Int64, {n_});
  int64_t* p = out.data<int64_t>();
  std::iota(p, p + n_, int64_t{0});
  const int64_t steps = n_ > 1 ? n_ - 1 : 0;
  philox::Words w{};
  for (int64_t k = 0; k < steps; ++k) {
    if (k % 2 == 0) w = philox::block_words(key, counter + static_cast<uint64_t>(k / 2));
    const int64_t i = n_ - 1 - k;
    const int s = static_cast<int>(k % 2);
    const int64_t j = philox::to_integer(w[2 * s + 1], w[2 * s], 0, static_cast<uint64_t>(i + 1));
    std::swap(p[i], p[j]);
  }
  Tensor& next = ensure_output(outputs[1], DType::Int64, {2});
  next.data<int64_t>()[0] = static_cast<int64_t>(key);
  next.data<int64_t>()[1] = static_cast<int64_t>(counter + philox::blocks_for(static_cast<uint64_t>(steps), 2));
}

std::vector<std::shared_ptr<Variable>> RandomPermutation::grad(const Node& node,
                                                               const std::vector<std::shared_ptr<Variable>>&) const {
  return std::vector<std::shared_ptr<Variable>>(node.inputs().size());
}

}  // namespace tgc
