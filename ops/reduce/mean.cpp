// Mean: the sum in double divided by the reduced count.
#include "ops/reduce/mean.h"

#include <limits>

namespace tgc {

std::vector<double> Mean::reduce(const Tensor& x, const ReducePlan& plan) const {
  std::vector<double> acc(plan.out_numel, 0.0);
  dispatch_dtype(x.dtype(), [&]<typename T>() {
    fold_elements<T>(x, plan, [&](int64_t k, T v) { acc[k] += static_cast<double>(v); });
  });
  const double count = static_cast<double>(plan.reduced_count);
  for (double& a : acc) a = plan.reduced_count ? a / count : std::numeric_limits<double>::quiet_NaN();
  return acc;
}

}  // namespace tgc
