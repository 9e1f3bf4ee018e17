// The one N-d loop over strided operands that host code uses: visits every index of a
// shape in C order and hands the callback each operand's element offset.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/shape.h"

namespace tgc {

// strides[k][d] is operand k's stride (in elements) along dim d of `shape`; broadcast
// operands pass stride 0. fn(const int64_t* offsets) receives one offset per operand,
// relative to each operand's first element. Nothing is called for empty shapes.
template <typename Fn>
void strided_loop(const Shape& shape, const std::vector<Strides>& strides, Fn&& fn) {
  const size_t nops = strides.size();
  const int ndim = static_cast<int>(shape.size());
  for (int64_t d : shape)
    if (d == 0) return;
  std::vector<int64_t> offsets(nops, 0);
  if (ndim == 0) {
    fn(offsets.data());
    return;
  }
  std::vector<int64_t> index(ndim, 0);
  const int inner = ndim - 1;
  const int64_t inner_n = shape[inner];
  while (true) {
    std::vector<int64_t> row = offsets;
    for (int64_t i = 0; i < inner_n; ++i) {
      fn(row.data());
      for (size_t k = 0; k < nops; ++k) row[k] += strides[k][inner];
    }
    // Odometer step over the outer dims.
    int d = inner - 1;
    for (; d >= 0; --d) {
      ++index[d];
      for (size_t k = 0; k < nops; ++k) offsets[k] += strides[k][d];
      if (index[d] < shape[d]) break;
      for (size_t k = 0; k < nops; ++k) offsets[k] -= strides[k][d] * shape[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace tgc
