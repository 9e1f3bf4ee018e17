// Outer: type rule and the reference evaluation.
#include "ops/blas/outer.h"

#include <type_traits>

#include "runtime/convert.h"
#include "runtime/strided_loop.h"

namespace tgc {
namespace {

int64_t static_numel(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d == kUnknownDim) return kUnknownDim;
    n *= d;
  }
  return n;
}

// Element storage for O: std::vector<bool> is packed, so bools are kept as uint8_t.
template <typename O>
using Stored = std::conditional_t<std::is_same_v<O, bool>, uint8_t, O>;

// The elements of `t` in C order, converted to O.
template <typename O>
std::vector<Stored<O>> flat_values(const Tensor& t) {
  std::vector<Stored<O>> out;
  out.reserve(static_cast<size_t>(t.numel()));
  dispatch_dtype(t.dtype(), [&]<typename S>() {
    const S* p = t.data<S>();
    strided_loop(t.shape(), {t.strides()}, [&](const int64_t* off) { out.push_back(convert_value<O>(p[off[0]])); });
  });
  return out;
}

// Products wrap like NumPy's: integers multiply in uint64 (no signed-overflow UB) and are
// narrowed modulo the width; bool is AND.
template <typename O>
O multiply(O a, O b) {
  if constexpr (std::is_same_v<O, bool>) return a && b;
  else if constexpr (is_float_type_v<O>) return a * b;
  else return static_cast<O>(static_cast<int64_t>(static_cast<uint64_t>(static_cast<int64_t>(a)) *
                                                   static_cast<uint64_t>(static_cast<int64_t>(b))));
}

}  // namespace

std::vector<Type> Outer::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 2, "Outer takes two inputs");
  return {Type(promote(inputs[0].dtype, inputs[1].dtype), {static_numel(inputs[0].shape), static_numel(inputs[1].shape)})};
}

std::vector<Shape> Outer::infer_shapes(const std::vector<Shape>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.size() == 2, "Outer takes two inputs");
  return {Shape{shape_numel(inputs[0]), shape_numel(inputs[1])}};
}

void Outer::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& x = inputs.at(0);
  const Tensor& y = inputs.at(1);
  DType dtype = promote(x.dtype(), y.dtype());
  Tensor& out = ensure_output(outputs.at(0), dtype, {x.numel(), y.numel()});
  dispatch_dtype(dtype, [&]<typename O>() {
    std::vector<Stored<O>> xs = flat_values<O>(x), ys = flat_values<O>(y);
    O* o = out.data<O>();
    for (size_t i = 0; i < xs.size(); ++i)
      for (size_t j = 0; j < ys.size(); ++j) o[i * ys.size() + j] = multiply<O>(xs[i], ys[j]);
  });
}

}  // namespace tgc
