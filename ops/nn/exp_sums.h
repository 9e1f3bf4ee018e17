// The numerically stable core that softmax, log_softmax and logsumexp share: per output
// element of a reduction, the max to shift by and the sum of exp(x - shift), in double.
#pragma once

#include <vector>

#include "ops/reduce/reduce_axes.h"
#include "runtime/tensor.h"

namespace tgc {

struct ExpSums {
  std::vector<double> shift;  // per output element: the max of its inputs (a NaN wins, as in np.amax)
  std::vector<double> sum;    // per output element: sum of exp(x - shift)
};

// Folds `x` by `plan`. With `finite_shift`, a max that is not finite (all -inf, a +inf,
// a NaN) shifts by 0 instead, as SciPy's logsumexp does: all -inf then sums to 0 (log gives
// -inf), a +inf to +inf, and a NaN stays NaN through the sum.
ExpSums shifted_exp_sums(const Tensor& x, const ReducePlan& plan, bool finite_shift);

}  // namespace tgc
