// The order a convolution's candidate algorithms are tried in (cudnn_conv_thunk.cpp), from
// the perf records cuDNN's _v7 queries return: those that fit the workspace cap, in cuDNN's
// order (fastest expected first). With config deterministic (the default: the same bits on
// every run) the deterministic ones come first and the others run only where none of those
// can; deterministic=false takes cuDNN's order as it is, as PyTorch does unless
// torch.backends.cudnn.deterministic is set (its backward algorithms are often the faster
// non-deterministic ones). Needs cudnn.h (TGC_HAVE_CUDNN_HEADERS).
#pragma once

#include <cstddef>
#include <vector>

#include "backends/cuda/cudnn_context.h"

namespace tgc::cuda {

// More workspace than this is not taken for one call: an algorithm asking for it is passed
// over for the next.
inline constexpr size_t kMaxConvWorkspaceBytes = size_t{1} << 30;

// The perf records of the three queries (forward, backward data, backward filter) have the
// same fields.
template <typename Perf>
std::vector<ConvAlgo> conv_algorithm_order(const Perf* perf, int count, bool deterministic) {
  std::vector<ConvAlgo> out;
  auto take = [&](bool want_deterministic, bool either) {
    for (int i = 0; i < count; ++i)
      if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= kMaxConvWorkspaceBytes &&
          (either || (perf[i].determinism == CUDNN_DETERMINISTIC) == want_deterministic))
        out.push_back(ConvAlgo{static_cast<int>(perf[i].algo), perf[i].mathType, perf[i].memory});
  };
  if (deterministic) {
    take(true, false);
    take(false, false);
  } else {
    take(false, true);
  }
  return out;
}

}  // namespace tgc::cuda
