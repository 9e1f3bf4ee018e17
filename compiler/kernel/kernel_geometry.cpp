// Kernel geometry: output space, output-space strides, kept/reduced split.
#include "compiler/kernel/kernel_geometry.h"

#include <algorithm>

#include "ops/elemwise/broadcast.h"

namespace tgc {

namespace {
bool is_reduced(const Kernel& k, int d) { return std::binary_search(k.reduce_axes.begin(), k.reduce_axes.end(), d); }
}  // namespace

Shape kernel_output_space(const Kernel& k, const Shape& loop) {
  Shape out;
  for (int d = 0; d < static_cast<int>(loop.size()); ++d) {
    if (!is_reduced(k, d)) out.push_back(loop[d]);
    else if (k.keepdims) out.push_back(1);
  }
  return out;
}

Strides output_space_strides(const Kernel& k, const Shape& shape, const Strides& strides, const Shape& out_space) {
  const Strides s = broadcast_strides(shape, strides, out_space);
  Strides loop(static_cast<size_t>(k.ndim), 0);
  size_t j = 0;
  for (int d = 0; d < k.ndim; ++d) {
    if (is_reduced(k, d)) {
      if (k.keepdims) ++j;
      continue;
    }
    loop[d] = s[j++];
  }
  return loop;
}

SplitDims split_reduced_dims(const Kernel& k, const Shape& loop, const std::vector<Strides>& loop_strides) {
  SplitDims s;
  s.kept_strides.resize(loop_strides.size());
  s.reduced_strides.resize(loop_strides.size());
  for (int d = 0; d < k.ndim; ++d) {
    const bool reduced = is_reduced(k, d);
    (reduced ? s.reduced : s.kept).push_back(loop[d]);
    for (size_t op = 0; op < loop_strides.size(); ++op)
      (reduced ? s.reduced_strides : s.kept_strides)[op].push_back(loop_strides[op][d]);
  }
  collapse_dims(s.kept, s.kept_strides);
  collapse_dims(s.reduced, s.reduced_strides);
  return s;
}

}  // namespace tgc
