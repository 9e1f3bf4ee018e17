// Mean over any set of axes. Its own op rather than a CAReduce kind: it is not a
// commutative-associative fold (it is a sum with a division epilogue), and its result dtype
// depends on floatX (mean of integers or bool is floatX, floats keep their dtype), a
// parameter none of the CAReduce kinds has.
#pragma once

#include <string>
#include <vector>

#include "ops/core/op.h"
#include "ops/reduce/reduce_axes.h"

namespace tgc {

class Mean : public Op {
 public:
  // `axes` canonical (see normalize_reduce_axes); `floatx` is the config's floatX at the
  // time the graph was built, the result dtype for integer and bool inputs.
  Mean(ReduceAxes axes, bool keepdims, DType floatx);

  const ReduceAxes& axes() const { return axes_; }
  bool keepdims() const { return keepdims_; }
  DType floatx() const { return floatx_; }

  // "Mean{axis=[0]}"; floatX is shown only when it is not the default float32.
  std::string name() const override;
  std::string op_class() const override { return "CAReduce"; }
  std::string user_name() const override { return "mean"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  // Sums in double and divides by the reduced count (more accurate than NumPy's float32
  // pairwise sum); the mean of an empty reduction is NaN, like NumPy's (without its warning).
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;

 private:
  ReduceAxes axes_;
  bool keepdims_;
  DType floatx_;
};

}  // namespace tgc
