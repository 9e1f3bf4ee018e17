// one_hot(labels, classes): float64 rows with a 1 at each int64 label, the targets of the
// classification tests' softmax cross-entropy (data-parallel training on threads, MPI and GPUs).
#pragma once

#include <cstdint>

#include "runtime/tensor.h"

namespace tgc::test {

inline Tensor one_hot(const Tensor& labels, int64_t classes) {
  const int64_t n = labels.numel();
  Tensor y = Tensor::zeros(DType::Float64, {n, classes});
  for (int64_t i = 0; i < n; ++i) y.data<double>()[i * classes + labels.data<int64_t>()[i]] = 1;
  return y;
}

}  // namespace tgc::test
