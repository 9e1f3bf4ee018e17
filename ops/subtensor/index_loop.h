// The element loop of (advanced) indexing, shared by AdvancedSubtensor and IncSubtensor:
// visits every element of an index result with its offset in the indexed input and its
// offset in a result-shaped operand.
#pragma once

#include <vector>

#include "ops/subtensor/index_spec.h"
#include "runtime/strided_loop.h"
#include "runtime/tensor.h"

namespace tgc {

// The layout's index tensors, one per advanced entry: the index arrays converted to int64,
// bounds-checked (ValueError "index 5 is out of bounds for axis 0 with size 3"), negative
// values wrapped, and broadcast to layout.bshape; integer entries as 0-d tensors.
std::vector<Tensor> prepare_index_tensors(const std::string& op, const IndexLayout& layout,
                                          const std::vector<Tensor>& arrays);

// Calls fn(source_offset, result_offset) for every element of layout.result_shape, in C
// order of the result. source_offset is relative to the indexed input's first element;
// result_offset uses `result_strides` (strides of an operand shaped like the result).
template <typename Fn>
void for_each_indexed(const IndexLayout& layout, const std::vector<Tensor>& index_tensors,
                      const Strides& result_strides, Fn&& fn) {
  const int nb = static_cast<int>(layout.bshape.size());
  std::vector<bool> is_adv(layout.view_shape.size(), false);
  for (const auto& a : layout.advanced) is_adv[a.view_axis] = true;
  // Split the view's basic axes and the result's axes into basic and broadcast groups.
  Shape basic_shape;
  Strides basic_src, basic_res, b_res;
  int r = 0;
  for (size_t d = 0; d < layout.view_shape.size(); ++d) {
    if (is_adv[d]) continue;
    if (r == layout.bpos) r += nb;  // the broadcast dims sit here in the result
    basic_shape.push_back(layout.view_shape[d]);
    basic_src.push_back(layout.view_strides[d]);
    basic_res.push_back(result_strides[r++]);
  }
  for (int k = 0; k < nb; ++k) b_res.push_back(result_strides[layout.bpos + k]);

  std::vector<Strides> outer_strides;
  std::vector<const int64_t*> idx;
  for (const Tensor& t : index_tensors) {
    outer_strides.push_back(t.strides());
    idx.push_back(t.data<int64_t>());
  }
  outer_strides.push_back(b_res);
  const size_t nidx = index_tensors.size();
  strided_loop(layout.bshape, outer_strides, [&](const int64_t* off) {
    int64_t src = layout.view_offset;
    for (size_t k = 0; k < nidx; ++k) src += idx[k][off[k]] * layout.view_strides[layout.advanced[k].view_axis];
    const int64_t res = off[nidx];
    if (basic_shape.empty()) {  // every axis indexed by an array: one element per index
      fn(src, res);
      return;
    }
    strided_loop(basic_shape, {basic_src, basic_res},
                 [&](const int64_t* o) { fn(src + o[0], res + o[1]); });
  });
}

}  // namespace tgc
