// The vocabulary on tensors: each function is its Var counterpart applied through eager()
// (frontend/api/eager/eager_apply.cpp), so the rules (broadcasting, promotion, literals'
// weak types, errors) are the graph's own.
#include <tgc/eager.h>
#include <tgc/join.h>
#include <tgc/indexing.h>
#include <tgc/linalg.h>
#include <tgc/math.h>
#include <tgc/nn.h>
#include <tgc/reductions.h>
#include <tgc/shape.h>

namespace tgc {

namespace {

template <typename F>
Tensor unary(const Tensor& x, F f) {
  return eager([&](const std::vector<Var>& v) { return f(v[0]); }, {x});
}
template <typename F>
Tensor binary(const Tensor& a, const Tensor& b, F f) {
  return eager([&](const std::vector<Var>& v) { return f(v[0], v[1]); }, {a, b});
}

}  // namespace

#define TGC_EAGER_BINARY_OPERATOR(op)                                                            \
  Tensor operator op(const Tensor& a, const Tensor& b) {                                         \
    return binary(a, b, [](const Var& x, const Var& y) { return x op y; });                      \
  }                                                                                              \
  Tensor operator op(const Tensor& a, double b) {                                                \
    return unary(a, [b](const Var& x) { return x op b; });                                       \
  }
TGC_EAGER_BINARY_OPERATOR(+)
TGC_EAGER_BINARY_OPERATOR(-)
TGC_EAGER_BINARY_OPERATOR(*)
TGC_EAGER_BINARY_OPERATOR(/)
TGC_EAGER_BINARY_OPERATOR(%)
TGC_EAGER_BINARY_OPERATOR(<)
TGC_EAGER_BINARY_OPERATOR(<=)
TGC_EAGER_BINARY_OPERATOR(>)
TGC_EAGER_BINARY_OPERATOR(>=)
#undef TGC_EAGER_BINARY_OPERATOR

Tensor operator+(double a, const Tensor& b) { return unary(b, [a](const Var& y) { return a + y; }); }
Tensor operator-(double a, const Tensor& b) { return unary(b, [a](const Var& y) { return a - y; }); }
Tensor operator*(double a, const Tensor& b) { return unary(b, [a](const Var& y) { return a * y; }); }
Tensor operator/(double a, const Tensor& b) { return unary(b, [a](const Var& y) { return a / y; }); }
Tensor operator-(const Tensor& x) { return unary(x, [](const Var& v) { return -v; }); }

Tensor eq(const Tensor& a, const Tensor& b) { return binary(a, b, [](const Var& x, const Var& y) { return eq(x, y); }); }
Tensor neq(const Tensor& a, const Tensor& b) { return binary(a, b, [](const Var& x, const Var& y) { return neq(x, y); }); }
Tensor maximum(const Tensor& a, const Tensor& b) {
  return binary(a, b, [](const Var& x, const Var& y) { return maximum(x, y); });
}
Tensor maximum(const Tensor& a, double b) { return unary(a, [b](const Var& x) { return maximum(x, b); }); }
Tensor minimum(const Tensor& a, const Tensor& b) {
  return binary(a, b, [](const Var& x, const Var& y) { return minimum(x, y); });
}
Tensor pow(const Tensor& a, const Tensor& b) { return binary(a, b, [](const Var& x, const Var& y) { return pow(x, y); }); }
Tensor pow(const Tensor& a, double b) { return unary(a, [b](const Var& x) { return pow(x, b); }); }
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  return eager([](const std::vector<Var>& v) { return where(v[0], v[1], v[2]); }, {cond, a, b});
}
Tensor clip(const Tensor& x, double lo, double hi) { return unary(x, [lo, hi](const Var& v) { return clip(v, lo, hi); }); }
Tensor cast(const Tensor& x, DType dtype) { return unary(x, [dtype](const Var& v) { return cast(v, dtype); }); }

#define TGC_EAGER_UNARY(fn) \
  Tensor fn(const Tensor& x) { return unary(x, [](const Var& v) { return fn(v); }); }
TGC_EAGER_UNARY(abs)
TGC_EAGER_UNARY(exp)
TGC_EAGER_UNARY(log)
TGC_EAGER_UNARY(log1p)
TGC_EAGER_UNARY(expm1)
TGC_EAGER_UNARY(sqrt)
TGC_EAGER_UNARY(square)
TGC_EAGER_UNARY(sin)
TGC_EAGER_UNARY(cos)
TGC_EAGER_UNARY(tanh)
TGC_EAGER_UNARY(sigmoid)
TGC_EAGER_UNARY(floor)
TGC_EAGER_UNARY(ceil)
TGC_EAGER_UNARY(sign)
#undef TGC_EAGER_UNARY

#define TGC_EAGER_REDUCTION(fn)                                                      \
  Tensor fn(const Tensor& x, Axes axes, bool keepdims) {                             \
    return unary(x, [&axes, keepdims](const Var& v) { return fn(v, axes, keepdims); }); \
  }
TGC_EAGER_REDUCTION(sum)
TGC_EAGER_REDUCTION(mean)
TGC_EAGER_REDUCTION(max)
TGC_EAGER_REDUCTION(min)
TGC_EAGER_REDUCTION(prod)
#undef TGC_EAGER_REDUCTION

Tensor argmax(const Tensor& x, std::optional<int> axis, bool keepdims) {
  return unary(x, [axis, keepdims](const Var& v) { return argmax(v, axis, keepdims); });
}
Tensor argmin(const Tensor& x, std::optional<int> axis, bool keepdims) {
  return unary(x, [axis, keepdims](const Var& v) { return argmin(v, axis, keepdims); });
}
Tensor softmax(const Tensor& x, int axis) { return unary(x, [axis](const Var& v) { return softmax(v, axis); }); }
Tensor log_softmax(const Tensor& x, int axis) { return unary(x, [axis](const Var& v) { return log_softmax(v, axis); }); }

Tensor dot(const Tensor& a, const Tensor& b) { return binary(a, b, [](const Var& x, const Var& y) { return dot(x, y); }); }
Tensor matmul(const Tensor& a, const Tensor& b) {
  return binary(a, b, [](const Var& x, const Var& y) { return matmul(x, y); });
}

Tensor flatten(const Tensor& x, int ndim) { return unary(x, [ndim](const Var& v) { return flatten(v, ndim); }); }
Tensor concatenate(const std::vector<Tensor>& xs, int axis) {
  return eager([axis](const std::vector<Var>& v) { return concatenate(v, axis); }, xs);
}
Tensor stack(const std::vector<Tensor>& xs, int axis) {
  return eager([axis](const std::vector<Var>& v) { return stack(v, axis); }, xs);
}
Tensor index(const Tensor& x, const std::vector<Index>& index) {
  for (const Index& i : index)
    if (std::holds_alternative<Var>(i.entry))
      throw TypeError("index(): an entry is a symbolic Var", "", "index a tensor with numbers, slices and newaxis; use take(x, indices) for an index tensor");
  return unary(x, [&index](const Var& v) { return v[index]; });
}
Tensor take(const Tensor& x, const Tensor& indices, std::optional<int> axis) {
  return binary(x, indices, [axis](const Var& v, const Var& i) { return take(v, i, axis); });
}

}  // namespace tgc
