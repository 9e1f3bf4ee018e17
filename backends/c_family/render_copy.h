// tgc's copy kernels in C-family source, for every dialect: the strided copy (a device view
// made dense: one entry per element size) and the dense byte copy that stands in for a copy
// engine where a kernel is quicker for small copies (CUDA). Entries follow the C-family ABI of
// kernel_render.h: operands first, then the params by value (OpenCL: then one element offset
// per operand).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/c_family/kernel_render.h"

namespace tgc::cfam {

// The strided copy's params, passed by value: dst[i] = src[offset of i], i in C order over
// `shape` (rank `ndim` <= kCopyMaxRank, size-1 dims dropped), offsets from `strides`.
constexpr int kCopyMaxRank = 8;
struct CopyParams {
  int64_t shape[kCopyMaxRank];
  int64_t strides[kCopyMaxRank];
  int64_t n;
  int64_t ndim;
};

// Source::entries of the copy kernels, in this order.
enum CopyEntry : int {
  kStridedCopy1 = 0,  // (src, dst, CopyParams) over 1-byte elements; 2, 4, 8 bytes follow
  kStridedCopy2,
  kStridedCopy4,
  kStridedCopy8,
  kCopyBytes,  // (src, dst, long long n): n dense bytes, 16 at a time where both are aligned
  // (src, dst, long long n, const int* flag): kCopyBytes unless *flag is nonzero (a kernel
  // of the call flagged an error: the call raises, and what it would write stays as it was).
  kCopyBytesUnless,
};
// The strided-copy entry for elements of `element_size` bytes (1, 2, 4 or 8).
CopyEntry strided_copy_entry(size_t element_size);

// The copy kernels' translation unit (only_entry >= 0: only that entry defined, as
// RenderOptions::only_entry).
Source render_copy_kernels(Dialect dialect, int only_entry = -1);

}  // namespace tgc::cfam
