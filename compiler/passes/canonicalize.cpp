// canonicalize: the rule table (rules in canonicalize_arith.cpp, canonicalize_constants.cpp,
// canonicalize_shape.cpp, canonicalize_broadcast.cpp and canonicalize_fill_sink.cpp), the
// pass that runs it, and the helpers the rules share.
#include "compiler/passes/canonicalize.h"

#include "compiler/passes/canonicalize_rules.h"
#include "ops/alloc/alloc.h"
#include "ops/core/apply.h"
#include "ops/shape/dimshuffle.h"
#include "runtime/convert.h"

namespace tgc {

std::span<const LocalRewrite> canonicalize_rules() {
  using namespace canon;
  // "1" and "0" are constants whose every element is that value (see is_filled_with); a rule
  // dropping one fires only when it does not broadcast x up, and casts x when the output's
  // dtype is not x's (int32 x * 1.0 -> cast(x, float32)).
  static const LocalRewrite rules[] = {
      // constant_fold within the fixed point: what other rules leave with constant inputs only.
      {"fold_constants", "neg(0.0025) -> -0.0025, alloc(0.0, (2, 3)) -> zeros (a node whose inputs became constants)", &fold_constants},
      {"mul_by_one", "x * 1 -> x, 1 * x -> x", &mul_by_one},
      {"add_zero", "x + 0 -> x, 0 + x -> x", &add_zero},
      {"sub_zero", "x - 0 -> x", &sub_zero},
      // Theano's rule: assumes x is finite (inf - inf and NaN - NaN are NaN, not 0).
      {"sub_self", "x - x -> zeros_like(x)", &sub_self},
      {"neg_neg", "-(-x) -> x", &neg_neg},
      {"div_by_one", "x / 1 -> x", &div_by_one},
      {"pow_one", "x ** 1 -> x", &pow_one},
      {"pow_two", "x ** 2 -> sqr(x)", &pow_two},
      // Differs only at x = -0 (sqrt gives -0, pow +0) and x = -inf (sqrt NaN, pow +inf).
      {"pow_half", "x ** 0.5 -> sqrt(x)", &pow_half},
      {"pow_minus_one", "x ** -1 -> 1 / x (float x)", &pow_minus_one},
      // Assumes x >= 0 (for x < 0, exp(log x) is NaN); exact where log x is exact.
      {"exp_log", "exp(log(x)) -> x", &exp_log},
      // Also where exp(x) overflows: the result is x, not inf.
      {"log_exp", "log(exp(x)) -> x", &log_exp},
      {"useless_cast", "cast(x, x.dtype) -> x", &useless_cast},
      // A constant an elemwise (or fill, alloc) only broadcasts is one value: 0-d, folded into the kernel by fusion.
      {"scalar_constant_operand", "x * full((1,), c) -> x * c, fill(x, full((3,), c)) -> fill(x, c) when it widens nothing", &scalar_constant_operand},
      // Exact only: a float chain folds when a factor is a power of two (or fast_math is on).
      {"constant_chain", "0.5 * (2.0 * x) -> x; -(3.0 * x) -> -3.0 * x; (i + 2) - 5 -> i + -3", &constant_chain},
      // The chosen branch, when it provably has the result's shape (else the where is a fill).
      {"where_constant_condition", "where(True, a, b) -> a; where(False, a, b) -> b", &where_constant_condition},
      // A condition known when compiling: the branch, and nothing left to be lazy about.
      {"ifelse_constant_condition", "ifelse(1, a, b) -> a; ifelse(0, a, b) -> b", &ifelse_constant_condition},
      {"ifelse_same_branches", "ifelse(c, a, a) -> a", &ifelse_same_branches},
      {"useless_reshape", "reshape(x, x.shape) -> x (static shapes)", &useless_reshape},
      {"useless_flatten", "flatten(x, x.ndim) -> x", &useless_flatten},
      {"identity_dimshuffle", "dimshuffle(x, {0, 1, ...}) -> x", &identity_dimshuffle},
      {"dimshuffle_dimshuffle", "dimshuffle(dimshuffle(x, p), q) -> dimshuffle(x, p then q)", &dimshuffle_dimshuffle},
      {"useless_alloc", "alloc(v, v.shape) -> v (static shapes)", &useless_alloc},
      {"useless_fill", "fill(like, v) -> v when v provably has the result's shape", &useless_fill},
      {"fill_into_elemwise", "fill(like, v) * y -> v * y when y provably gives the result's shape", &fill_into_elemwise},
      // Elementwise ops commute with broadcasting: the fill moves on to a reader that may make it useless.
      {"fill_sink", "-fill(like, v) -> fill(like, -v); cast(alloc(v, s)) -> alloc(cast(v), s)", &fill_sink},
      {"fill_fill", "fill(a, fill(b, v)) -> fill(a, v) when b adds nothing to a's shape", &fill_fill},
      {"dimshuffle_fill_sink", "dimshuffle(fill(like, 0-d v)) -> fill(dimshuffle(like), v); likewise alloc", &dimshuffle_fill_sink},
      {"sum_of_alloc", "sum(alloc(v, (2, 3)), axis=1) -> alloc(v * 3, (2,)) for a 0-d float v", &sum_of_alloc},
      {"fill_to_alloc", "fill(like, v) -> alloc(v, shape) when the shape is static", &fill_to_alloc},
      {"static_reduce_count", "reduce_count(x) -> constant when x's reduced dims are static", &static_reduce_count},
      {"static_shape_of", "shape_of(x) -> constant when x's shape is static (types or shape facts)", &static_shape_of},
      {"static_arange_like", "arange(x.shape[i]) -> arange(n) when x's dim i is static (types or shape facts)", &static_arange_like},
      {"static_reshape_like", "reshape_like(x, like) -> reshape(x, like.shape) (static)", &static_reshape_like},
      {"static_split_like", "split_like(x, a, b) -> split(x, sizes) (static sizes)", &static_split_like},
      {"useless_sum_to_like", "sum_to_like(g, like) -> g when the shapes are provably equal", &useless_sum_to_like},
      {"sum_to_like_to_sum", "sum_to_like(g (?, n), like (1, n)) -> sum(g, axis=0, keepdims) when the axes are fixed", &sum_to_like_to_sum},
      // grad() has read it already: at run time it is the identity.
      {"useless_stop_gradient", "stop_gradient(x) -> x", &useless_stop_gradient},
  };
  return rules;
}

bool canonicalize(Graph& graph, const PassContext& ctx) {
  return rewrite_to_fixed_point(graph, canonicalize_rules(), "canonicalize", ctx);
}

namespace canon {

namespace {

bool constant_filled_with(const Tensor& t, double value) {
  if (!t.defined() || !t.on_host()) return false;
  Tensor c = t.contiguous();
  return dispatch_dtype(c.dtype(), [&]<typename T>() {
    const T* p = c.data<T>();
    for (int64_t i = 0, n = c.numel(); i < n; ++i)
      if (convert_value<double>(p[i]) != value) return false;
    return true;
  });
}

}  // namespace

bool is_filled_with(const Variable& v, double value) {
  if (v.kind() == Variable::Kind::Constant) return constant_filled_with(v.constant_value(), value);
  const Node* n = v.owner();
  if (!n) return false;
  const Op& op = n->op();
  if (dynamic_cast<const Alloc*>(&op) || dynamic_cast<const DimShuffle*>(&op)) return is_filled_with(*n->inputs()[0], value);
  if (dynamic_cast<const Fill*>(&op)) return is_filled_with(*n->inputs()[1], value);
  return false;
}

bool broadcasts_into(const Type& other, const Type& x) {
  if (other.ndim() > x.ndim()) return false;
  const int lead = x.ndim() - other.ndim();
  for (int d = 0; d < other.ndim(); ++d) {
    const int64_t o = other.shape[d], s = x.shape[lead + d];
    if (o == 1) continue;
    if (o == kUnknownDim || o != s) return false;
  }
  return true;
}

const Elemwise* elemwise(const Node& n, ScalarOpKind kind) {
  const auto* e = dynamic_cast<const Elemwise*>(&n.op());
  return e && e->kind() == kind ? e : nullptr;
}

const Elemwise* produced_by(const Variable& v, ScalarOpKind kind) {
  return v.owner() ? elemwise(*v.owner(), kind) : nullptr;
}

VarPtr as_dtype(const VarPtr& x, DType dtype) {
  if (x->type().dtype == dtype) return x;
  return apply1(std::make_shared<Elemwise>(ScalarOpKind::Cast, dtype), {x});
}

VarPtr ew(ScalarOpKind kind, std::vector<VarPtr> inputs, DType floatx) {
  return apply1(std::make_shared<Elemwise>(kind, std::nullopt, floatx), std::move(inputs));
}

VarPtr scalar_constant(double value, DType dtype) { return Variable::constant(Tensor::full(dtype, Shape{}, value)); }

}  // namespace canon

}  // namespace tgc
