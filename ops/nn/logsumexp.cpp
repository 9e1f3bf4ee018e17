// LogSumExp: the stable reference evaluation, log(sum(exp(x - m))) + m.
#include "ops/nn/logsumexp.h"

#include <cmath>

#include "ops/nn/exp_sums.h"

namespace tgc {

std::vector<double> LogSumExp::reduce(const Tensor& x, const ReducePlan& plan) const {
  ExpSums s = shifted_exp_sums(x, plan, /*finite_shift=*/true);
  for (size_t i = 0; i < s.sum.size(); ++i) s.sum[i] = std::log(s.sum[i]) + s.shift[i];
  return s.sum;
}

}  // namespace tgc
