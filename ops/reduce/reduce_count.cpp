// ReduceCount: the reduced element count of a runtime shape, as a 0-d tensor.
#include "ops/reduce/reduce_count.h"

#include "ops/core/variable.h"
#include "runtime/convert.h"

namespace tgc {

ReduceCount::ReduceCount(ReduceAxes axes, DType dtype) : axes_(std::move(axes)), dtype_(dtype) {
  check_canonical_axes(axes_, "ReduceCount");
}

std::string ReduceCount::name() const {
  return "ReduceCount" + brace_params({axes_param(axes_), "dtype=" + std::string(dtype_name(dtype_))});
}

std::vector<Type> ReduceCount::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, "ReduceCount takes one input");
  check_axes_fit(axes_, inputs[0].ndim(), "reduce_count");
  return {Type(dtype_, {})};
}

std::vector<Shape> ReduceCount::infer_shapes(const std::vector<Shape>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 1, "ReduceCount takes one input");
  check_axes_fit(axes_, static_cast<int>(inputs[0].size()), "reduce_count");
  return {Shape{}};
}

void ReduceCount::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Shape& shape = inputs.at(0).shape();
  check_axes_fit(axes_, static_cast<int>(shape.size()), "reduce_count");
  const int64_t count = make_reduce_plan(shape, axes_, false).reduced_count;
  Tensor& out = ensure_output(outputs.at(0), dtype_, {});
  dispatch_dtype(dtype_, [&]<typename T>() { out.data<T>()[0] = convert_value<T>(count); });
}

std::vector<VarPtr> ReduceCount::grad(const Node&, const std::vector<VarPtr>&) const { return {nullptr}; }

}  // namespace tgc
