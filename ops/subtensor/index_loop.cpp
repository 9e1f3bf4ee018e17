// Preparing index arrays for the indexing loop: conversion, bounds checks, broadcasting.
#include "ops/subtensor/index_loop.h"

#include <fmt/format.h>

namespace tgc {

std::vector<Tensor> prepare_index_tensors(const std::string& op, const IndexLayout& layout,
                                          const std::vector<Tensor>& arrays) {
  std::vector<Tensor> out;
  for (const auto& a : layout.advanced) {
    if (a.array < 0) {
      out.push_back(Tensor::scalar<int64_t>(a.value).broadcast_to(layout.bshape));
      continue;
    }
    const Tensor& src = arrays[a.array];
    TGC_INTERNAL_CHECK(is_integer(src.dtype()), op + ": index array of dtype " + std::string(dtype_name(src.dtype())));
    Tensor idx = src.astype(DType::Int64);  // a fresh contiguous copy we may rewrite
    const int64_t n = layout.view_shape[a.view_axis];
    int64_t* p = idx.data<int64_t>();
    for (int64_t i = 0, total = idx.numel(); i < total; ++i) {
      if (p[i] < -n || p[i] >= n)
        throw ValueError(fmt::format("{}: index {} is out of bounds for axis {} with size {}", op, p[i], a.input_axis,
                                     n),
                         "", fmt::format("valid indices for this axis are {} .. {}", -n, n - 1));
      if (p[i] < 0) p[i] += n;
    }
    out.push_back(idx.broadcast_to(layout.bshape));
  }
  return out;
}

}  // namespace tgc
