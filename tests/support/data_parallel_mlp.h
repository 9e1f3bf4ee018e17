// The training the data-parallel tests compare (tests/frontend/data_parallel_test.cpp over
// ranks of one group, function_ranks_test.cpp over the devices of one function): a 7-5-3 relu
// MLP in float64, softmax cross-entropy, SGD, and kSteps batches of kBatch one-hot examples.
#pragma once

#include <vector>

#include <tgc/tgc.h>

#include "support/one_hot.h"

namespace tgc::test {

inline constexpr int64_t kBatch = 12, kIn = 7, kHidden = 5, kClasses = 3;
inline constexpr int kSteps = 4;

struct Batches {
  std::vector<Tensor> x, y;
};

inline Batches make_batches() {
  RandomState rng(5);
  Batches b;
  for (int s = 0; s < kSteps; ++s) {
    b.x.push_back(rng.randn({kBatch, kIn}));
    b.y.push_back(one_hot(rng.randint(0, kClasses, {kBatch}), kClasses));
  }
  return b;
}

struct Mlp {
  // Rows of unknown count, columns of known size (as a dataset's inputs are declared).
  Var x = tensor("x", DType::Float64, {kUnknownDim, kIn}), y = tensor("y", DType::Float64, {kUnknownDim, kClasses});
  std::vector<Shared> params;
  Var loss, logits;
  Updates updates;

  // `shift` perturbs the initial values (a rank that starts elsewhere must be given rank 0's).
  explicit Mlp(double shift = 0) {
    RandomState rng(3);
    params = {shared(rng.randn({kIn, kHidden}), "w1"), shared(Tensor::full(DType::Float64, {kHidden}, 0.1 + shift), "b1"),
              shared(rng.randn({kHidden, kClasses}), "w2"), shared(Tensor::zeros(DType::Float64, {kClasses}), "b2")};
    Var h = maximum(dot(x, params[0]) + params[1], 0.0);
    logits = dot(h, params[2]) + params[3];
    loss = -mean(sum(y * log_softmax(logits), 1));
    std::vector<Var> wrt(params.begin(), params.end());
    std::vector<Var> g = grad(loss, wrt);
    for (size_t i = 0; i < params.size(); ++i) updates.emplace_back(params[i], params[i] - 0.5 * g[i]);
  }
};

}  // namespace tgc::test
