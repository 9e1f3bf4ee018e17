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

#include "frontend/api/backend_choice.h"
#include "frontend/api/eager/eager_known_op.h"
#include "runtime/device_kernels.h"
#include "runtime/error.h"

namespace tgc {

namespace {

using eager_impl::append_bytes;
using eager_impl::eager_known;

// Each operation names itself (and its parameters) for eager_known's signature; `elementwise`
// says whether it is recorded for lazy fusion.
template <typename F>
Tensor unary(const std::string& op, bool elementwise, const Tensor& x, F f) {
  return eager_known(op, elementwise, [&](const std::vector<Var>& v) { return f(v[0]); }, {x});
}
template <typename F>
Tensor binary(const std::string& op, bool elementwise, const Tensor& a, const Tensor& b, F f) {
  return eager_known(op, elementwise, [&](const std::vector<Var>& v) { return f(v[0], v[1]); }, {a, b});
}
// An operation with a literal operand: the literal's bytes are part of its name.
std::string with(const char* op, double literal) {
  std::string s = op;
  append_bytes(s, literal);
  return s;
}
std::string with_axes(const char* op, const Axes& axes, bool keepdims) {
  std::string s = op;
  s += keepdims ? 'k' : '-';
  if (axes.axes)
    for (int a : *axes.axes) append_bytes(s, a);
  else
    s += '*';
  return s;
}
std::string with_axis(const char* op, std::optional<int> axis, bool keepdims) {
  std::string s = op;
  s += keepdims ? 'k' : '-';
  if (axis) append_bytes(s, *axis);
  return s;
}

}  // namespace

#define TGC_EAGER_BINARY_OPERATOR(op)                                                            \
  Tensor operator op(const Tensor& a, const Tensor& b) {                                         \
    return binary(#op, true, a, b, [](const Var& x, const Var& y) { return x op y; });           \
  }                                                                                              \
  Tensor operator op(const Tensor& a, double b) {                                                \
    return unary(with(#op "r", b), true, a, [b](const Var& x) { return x op b; });               \
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

Tensor operator+(double a, const Tensor& b) { return unary(with("l+", a), true, b, [a](const Var& y) { return a + y; }); }
Tensor operator-(double a, const Tensor& b) { return unary(with("l-", a), true, b, [a](const Var& y) { return a - y; }); }
Tensor operator*(double a, const Tensor& b) { return unary(with("l*", a), true, b, [a](const Var& y) { return a * y; }); }
Tensor operator/(double a, const Tensor& b) { return unary(with("l/", a), true, b, [a](const Var& y) { return a / y; }); }
Tensor operator-(const Tensor& x) { return unary("neg", true, x, [](const Var& v) { return -v; }); }

Tensor eq(const Tensor& a, const Tensor& b) {
  return binary("eq", true, a, b, [](const Var& x, const Var& y) { return eq(x, y); });
}
Tensor neq(const Tensor& a, const Tensor& b) {
  return binary("neq", true, a, b, [](const Var& x, const Var& y) { return neq(x, y); });
}
Tensor maximum(const Tensor& a, const Tensor& b) {
  return binary("maximum", true, a, b, [](const Var& x, const Var& y) { return maximum(x, y); });
}
Tensor maximum(const Tensor& a, double b) {
  return unary(with("maximum_r", b), true, a, [b](const Var& x) { return maximum(x, b); });
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  return binary("minimum", true, a, b, [](const Var& x, const Var& y) { return minimum(x, y); });
}
Tensor pow(const Tensor& a, const Tensor& b) {
  return binary("pow", true, a, b, [](const Var& x, const Var& y) { return pow(x, y); });
}
Tensor pow(const Tensor& a, double b) { return unary(with("pow_r", b), true, a, [b](const Var& x) { return pow(x, b); }); }
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  return eager_known("where", true, [](const std::vector<Var>& v) { return where(v[0], v[1], v[2]); }, {cond, a, b});
}
Tensor clip(const Tensor& x, double lo, double hi) {
  std::string op = with("clip", lo);
  append_bytes(op, hi);
  return unary(op, true, x, [lo, hi](const Var& v) { return clip(v, lo, hi); });
}
Tensor cast(const Tensor& x, DType dtype) {
  return unary(with("cast", static_cast<double>(dtype)), true, x, [dtype](const Var& v) { return cast(v, dtype); });
}

namespace {

// Lends runtime/ this cast for Tensor::astype of device tensors (runtime/device_kernels.h),
// when libtgc loads: the conversion runs on the tensor's device instead of through the host.
const bool g_device_cast_registered = [] {
  register_device_cast([](const Tensor& x, DType dtype) -> std::optional<Tensor> {
    // Only on the devices tgc opened by name (a device of a test's own is not one of them).
    try {
      if (&device_by_name(x.device().name()) != &x.device()) return std::nullopt;
    } catch (const ConfigError&) {
      return std::nullopt;
    }
    return cast(x, dtype);
  });
  return true;
}();

}  // namespace

#define TGC_EAGER_UNARY(fn) \
  Tensor fn(const Tensor& x) { return unary(#fn, true, x, [](const Var& v) { return fn(v); }); }
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

#define TGC_EAGER_REDUCTION(fn)                                                                          \
  Tensor fn(const Tensor& x, Axes axes, bool keepdims) {                                                 \
    return unary(with_axes(#fn, axes, keepdims), false, x,                                               \
                 [&axes, keepdims](const Var& v) { return fn(v, axes, keepdims); });                      \
  }
TGC_EAGER_REDUCTION(sum)
TGC_EAGER_REDUCTION(mean)
TGC_EAGER_REDUCTION(max)
TGC_EAGER_REDUCTION(min)
TGC_EAGER_REDUCTION(prod)
#undef TGC_EAGER_REDUCTION

Tensor argmax(const Tensor& x, std::optional<int> axis, bool keepdims) {
  return unary(with_axis("argmax", axis, keepdims), false, x,
               [axis, keepdims](const Var& v) { return argmax(v, axis, keepdims); });
}
Tensor argmin(const Tensor& x, std::optional<int> axis, bool keepdims) {
  return unary(with_axis("argmin", axis, keepdims), false, x,
               [axis, keepdims](const Var& v) { return argmin(v, axis, keepdims); });
}
Tensor softmax(const Tensor& x, int axis) {
  return unary(with_axis("softmax", axis, false), false, x, [axis](const Var& v) { return softmax(v, axis); });
}
Tensor log_softmax(const Tensor& x, int axis) {
  return unary(with_axis("log_softmax", axis, false), false, x, [axis](const Var& v) { return log_softmax(v, axis); });
}

Tensor dot(const Tensor& a, const Tensor& b) {
  return binary("dot", false, a, b, [](const Var& x, const Var& y) { return dot(x, y); });
}
Tensor matmul(const Tensor& a, const Tensor& b) {
  return binary("matmul", false, a, b, [](const Var& x, const Var& y) { return matmul(x, y); });
}

Tensor flatten(const Tensor& x, int ndim) {
  return unary(with_axis("flatten", ndim, false), false, x, [ndim](const Var& v) { return flatten(v, ndim); });
}
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
  return eager([&index](const std::vector<Var>& v) { return v[0][index]; }, {x});
}
Tensor take(const Tensor& x, const Tensor& indices, std::optional<int> axis) {
  return binary(with_axis("take", axis, false), false, x, indices, [axis](const Var& v, const Var& i) { return take(v, i, axis); });
}

}  // namespace tgc
