// SumToLike: type and shape rules, and the host reduction (accumulated in double, so a
// float32 gradient summed over many broadcast positions keeps its precision).
#include "ops/gradient/sum_to_like.h"

#include <fmt/format.h>

#include "ops/alloc/alloc.h"
#include "ops/core/apply.h"
#include "ops/core/node.h"
#include "runtime/convert.h"
#include "runtime/error.h"
#include "runtime/strided_loop.h"

namespace tgc {

namespace {

// Whether `like` (static or concrete dims) can be the operand that broadcast to `g`.
// Unknown dims (-1) fit anything.
bool fits(const std::vector<int64_t>& like, const std::vector<int64_t>& g) {
  if (like.size() > g.size()) return false;
  const size_t lead = g.size() - like.size();
  for (size_t j = 0; j < like.size(); ++j) {
    int64_t l = like[j], d = g[lead + j];
    if (l == kUnknownDim || d == kUnknownDim) continue;
    if (l != d && l != 1) return false;
  }
  return true;
}

ShapeError mismatch(const std::string& g, const std::string& like) {
  return ShapeError(fmt::format("sum_to_like: a gradient of shape {} cannot be summed to shape {}", g, like),
                    "", "the second operand must broadcast to the first (this is a gradient rule's bug "
                        "when grad() built it)");
}

}  // namespace

std::vector<Type> SumToLike::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 2, "SumToLike takes two inputs");
  const Type& g = inputs[0];
  const Type& like = inputs[1];
  if (!is_float(g.dtype))
    throw TypeError(fmt::format("sum_to_like: the gradient must be a float tensor, got {}", g.str()), "",
                    "gradients are float tensors; cast the operand first");
  if (!fits(like.shape, g.shape)) throw mismatch(static_shape_str(g.shape), static_shape_str(like.shape));
  return {Type(g.dtype, like.shape)};
}

std::vector<Shape> SumToLike::infer_shapes(const std::vector<Shape>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 2, "SumToLike takes two inputs");
  if (!fits(inputs[1], inputs[0])) throw mismatch(shape_str(inputs[0]), shape_str(inputs[1]));
  return {inputs[1]};
}

void SumToLike::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& g = inputs[0];
  const Shape out_shape = infer_shapes({g.shape(), inputs[1].shape()})[0];
  if (out_shape == g.shape()) {  // nothing was broadcast
    outputs[0] = g;
    return;
  }
  // Each g element lands in the output slot whose index drops the leading dims and
  // pins the stretched size-1 dims to 0: accumulator stride 0 along those.
  const size_t lead = g.shape().size() - out_shape.size();
  Strides out_strides = contiguous_strides(out_shape);
  Strides acc(g.shape().size(), 0);
  for (size_t j = 0; j < out_shape.size(); ++j)
    acc[lead + j] = (out_shape[j] == 1 && g.shape()[lead + j] != 1) ? 0 : out_strides[j];
  std::vector<double> sums(static_cast<size_t>(shape_numel(out_shape)), 0.0);
  Tensor& out = ensure_output(outputs[0], g.dtype(), out_shape);
  dispatch_dtype(g.dtype(), [&]<typename T>() {
    const T* p = g.data<T>();
    strided_loop(g.shape(), {g.strides(), acc},
                 [&](const int64_t* off) { sums[off[1]] += convert_value<double>(p[off[0]]); });
    T* o = out.data<T>();
    for (size_t i = 0; i < sums.size(); ++i) o[i] = convert_value<T>(sums[i]);
  });
}

std::vector<VarPtr> SumToLike::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  // The sum's adjoint is a broadcast: fill g's shape with the output gradient.
  if (!output_grads[0]) return {nullptr, nullptr};
  return {apply1(std::make_shared<Fill>(), {node.inputs()[0], output_grads[0]}), nullptr};
}

}  // namespace tgc
