// Mean over any set of axes. Its own op rather than a CAReduce kind: it is not a
// commutative-associative fold (it is a sum with a division epilogue), and its result dtype
// depends on floatX (mean of integers or bool is floatX, floats keep their dtype), a
// parameter none of the CAReduce kinds has.
#pragma once

#include <string>
#include <vector>

#include "ops/reduce/float_reduce.h"

namespace tgc {

class Mean : public FloatReduce {
 public:
  // `axes` canonical (see normalize_reduce_axes); `floatx` is the config's floatX at the
  // time the graph was built, the result dtype for integer and bool inputs.
  Mean(ReduceAxes axes, bool keepdims, DType floatx) : FloatReduce("Mean", std::move(axes), keepdims, floatx) {}

  std::string op_class() const override { return "CAReduce"; }
  std::string user_name() const override { return "mean"; }
  // g broadcast back and divided by the reduced count (from the runtime shape when the
  // reduced dims are not static); integer inputs: null.
  std::vector<std::shared_ptr<Variable>> grad(const Node& node,
                                              const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 private:
  // Sums in double and divides by the reduced count (more accurate than NumPy's float32
  // pairwise sum); the mean of an empty reduction is NaN, like NumPy's (without its warning).
  std::vector<double> reduce(const Tensor& x, const ReducePlan& plan) const override;
};

}  // namespace tgc
