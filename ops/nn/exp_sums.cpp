// The max-shifted sums of exponentials behind softmax and logsumexp.
#include "ops/nn/exp_sums.h"

#include <cmath>
#include <limits>

namespace tgc {

ExpSums shifted_exp_sums(const Tensor& x, const ReducePlan& plan, bool finite_shift) {
  ExpSums r{std::vector<double>(plan.out_numel, -std::numeric_limits<double>::infinity()),
            std::vector<double>(plan.out_numel, 0.0)};
  dispatch_dtype(x.dtype(), [&]<typename T>() {
    fold_elements<T>(x, plan, [&](int64_t k, T v) {
      double d = static_cast<double>(v);
      if (d > r.shift[k] || std::isnan(d)) r.shift[k] = d;
    });
    if (finite_shift)
      for (double& m : r.shift)
        if (!std::isfinite(m)) m = 0.0;
    fold_elements<T>(x, plan, [&](int64_t k, T v) { r.sum[k] += std::exp(static_cast<double>(v) - r.shift[k]); });
  });
  return r;
}

}  // namespace tgc
