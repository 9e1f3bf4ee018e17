// The operations of the C++ API as functions of tgc._tgc (tgc.tensor re-exports them):
// elementwise math, reductions, linear algebra, shapes, indexing helpers, joining,
// creation and gradients. Each is the C++ function of the same name; arguments may be
// Vars, Python numbers or arrays (see as_var / as_operand).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/bindings.h"

namespace tgc::python {
namespace {

std::vector<Var> as_vars(nb::handle seq) {
  std::vector<Var> out;
  for (nb::handle h : seq) out.push_back(as_var(h));
  return out;
}

// Theano's zeros((x.shape[0], 3)): a shape whose entries are numbers or dims of tensors known
// only when the function runs. The value is allocated with 1 in those dims, then broadcast by
// fill over each symbolic dim's index vector (arange(x.shape[i]) laid along that axis): the
// result's size there is read from x's metadata on each call. Any other symbolic entry is the
// TypeError arange gives.
bool has_symbolic_entry(nb::handle shape) {
  if (nb::isinstance<Var>(shape)) return true;
  if (!nb::isinstance<nb::sequence>(shape) || nb::isinstance<nb::str>(shape)) return false;
  for (nb::handle d : shape)
    if (nb::isinstance<Var>(d)) return true;
  return false;
}

Var alloc_symbolic(const Var& value, nb::handle shape) {
  std::vector<nb::object> dims;
  if (nb::isinstance<Var>(shape)) {
    if (nb::cast<Var>(shape).ndim() != 0)
      throw TypeError("a whole symbolic shape (such as x.shape) given as a size", "",
                      "zeros_like(x), ones_like(x) or fill(x, value) make a tensor of x's shape; or give the dims: "
                      "zeros((x.shape[0], 3))");
    dims.push_back(nb::borrow(shape));  // one dim: alloc(v, x.shape[0])
  } else {
    for (nb::handle d : shape) dims.push_back(nb::borrow(d));
  }
  std::vector<int64_t> fixed;
  for (const nb::object& d : dims) fixed.push_back(nb::isinstance<Var>(d) ? 1 : nb::cast<int64_t>(d));
  Var out = alloc(value, fixed);
  const int ndim = static_cast<int>(dims.size());
  for (int i = 0; i < ndim; ++i) {
    if (!nb::isinstance<Var>(dims[i])) continue;
    std::vector<int> along(ndim, -1);  // the index vector as axis i, size-1 axes elsewhere
    along[i] = 0;
    out = fill(dimshuffle(arange(nb::cast<Var>(dims[i])), along), out);
  }
  return out;
}

std::optional<DType> opt_dtype(nb::handle dt) {
  if (dt.is_none()) return std::nullopt;
  return as_dtype(dt);
}

void bind_elemwise(nb::module_& m) {
  using Unary = Var (*)(const Var&);
  auto unary = [&](const char* name, Unary fn, const char* doc) {
    m.def(name, [fn](nb::handle x) { return fn(as_var(x)); }, nb::arg("x"), doc);
  };
  unary("neg", &neg, "-x.");
  unary("abs", &abs, "|x|.");
  unary("sign", &sign, "-1, 0 or 1 per element (NaN stays NaN).");
  unary("logical_not", &logical_not, "not x, per element (nonzero is true); a bool tensor.");
  unary("isnan", &isnan, "Whether each element is NaN.");
  unary("isinf", &isinf, "Whether each element is infinite.");
  unary("exp", &exp, "e**x per element (integers compute in floatX).");
  unary("exp2", &exp2, "2**x per element.");
  unary("expm1", &expm1, "exp(x) - 1, accurate near 0.");
  unary("log", &log, "The natural logarithm per element.");
  unary("log2", &log2, "The base-2 logarithm per element.");
  unary("log10", &log10, "The base-10 logarithm per element.");
  unary("log1p", &log1p, "log(1 + x), accurate near 0.");
  unary("sqrt", &sqrt, "The square root per element.");
  unary("rsqrt", &rsqrt, "1 / sqrt(x) per element.");
  unary("square", &square, "x * x per element (integers stay integers).");
  unary("sqr", &sqr, "Theano's name for square.");
  unary("sin", &sin, "The sine per element.");
  unary("cos", &cos, "The cosine per element.");
  unary("tan", &tan, "The tangent per element.");
  unary("tanh", &tanh, "The hyperbolic tangent per element.");
  unary("sinh", &sinh, "The hyperbolic sine per element.");
  unary("cosh", &cosh, "The hyperbolic cosine per element.");
  unary("arcsin", &arcsin, "The inverse sine per element.");
  unary("arccos", &arccos, "The inverse cosine per element.");
  unary("arctan", &arctan, "The inverse tangent per element.");
  unary("erf", &erf, "The error function per element.");
  unary("erfc", &erfc, "1 - erf(x), accurate for large x.");
  unary("sigmoid", &sigmoid, "1 / (1 + exp(-x)), stable for large |x|.");
  unary("softplus", &softplus, "log(1 + exp(x)), stable for large |x|.");
  unary("floor", &floor, "The largest integer not above x, per element.");
  unary("ceil", &ceil, "The smallest integer not below x, per element.");
  unary("round", &round, "x rounded half to even (NumPy's round).");
  unary("trunc", &trunc, "x rounded towards zero.");

  using Binary = Var (*)(const Operand&, const Operand&);
  auto binary = [&](const char* name, Binary fn, const char* doc) {
    m.def(name, [fn](nb::handle a, nb::handle b) { return fn(as_operand(a), as_operand(b)); }, nb::arg("a"),
          nb::arg("b"), doc);
  };
  binary("add", &add, "a + b (NumPy broadcasting; Python numbers take the tensor's dtype).");
  binary("sub", &sub, "a - b.");
  binary("mul", &mul, "a * b.");
  binary("true_div", &true_div, "a / b (integers give floatX).");
  binary("floor_div", &floor_div, "a // b, flooring like Python (integer division by zero fails at call time).");
  binary("mod", &mod, "a % b with the divisor's sign, like Python.");
  binary("pow", &pow, "a ** b.");
  binary("maximum", &maximum, "The larger of a and b per element (NaN propagates).");
  binary("minimum", &minimum, "The smaller of a and b per element (NaN propagates).");
  binary("lt", &lt, "a < b, a bool tensor.");
  binary("le", &le, "a <= b, a bool tensor.");
  binary("gt", &gt, "a > b, a bool tensor.");
  binary("ge", &ge, "a >= b, a bool tensor.");
  binary("eq", &eq, "a == b per element, a bool tensor (the operator == compares identity, as in Theano).");
  binary("neq", &neq, "a != b per element, a bool tensor.");
  binary("logical_and", &logical_and, "a and b per element (nonzero is true).");
  binary("logical_or", &logical_or, "a or b per element.");
  binary("logical_xor", &logical_xor, "a xor b per element.");
  binary("arctan2", &arctan2, "The angle of the point (b, a): arctan(a / b) in the right quadrant.");

  m.def("clip", [](nb::handle x, nb::handle lo, nb::handle hi) { return clip(as_operand(x), as_operand(lo), as_operand(hi)); },
        nb::arg("x"), nb::arg("lo"), nb::arg("hi"), "x limited to [lo, hi], as NumPy's clip.");
  m.def("where", [](nb::handle c, nb::handle a, nb::handle b) { return where(as_operand(c), as_operand(a), as_operand(b)); },
        nb::arg("cond"), nb::arg("a"), nb::arg("b"), "a where cond is true, else b (broadcasting all three).");
  m.def("switch", [](nb::handle c, nb::handle a, nb::handle b) { return switch_(as_operand(c), as_operand(a), as_operand(b)); },
        nb::arg("cond"), nb::arg("ift"), nb::arg("iff"), "Theano's name for where.");
  m.def("cast", [](nb::handle x, nb::handle dt) { return cast(as_var(x), as_dtype(dt)); }, nb::arg("x"),
        nb::arg("dtype"), "x converted to dtype (NumPy's astype: float to int truncates).");
}

void bind_reductions(nb::module_& m) {
  using Reduce = Var (*)(const Var&, Axes, bool);
  auto reduce = [&](const char* name, Reduce fn, const char* doc) {
    m.def(name, [fn](nb::handle x, nb::handle axis, bool keepdims) { return fn(as_var(x), as_axes(axis), keepdims); },
          nb::arg("x"), nb::arg("axis") = nb::none(), nb::arg("keepdims") = false, doc);
  };
  reduce("sum", &sum, "The sum over axis (None: all; an int or a tuple of ints).");
  reduce("prod", &prod, "The product over axis.");
  reduce("mean", &mean, "The mean over axis (integers give floatX).");
  reduce("max", &max, "The largest element over axis.");
  reduce("min", &min, "The smallest element over axis.");
  reduce("all", &all, "Whether every element over axis is nonzero.");
  reduce("any", &any, "Whether some element over axis is nonzero.");
  reduce("logsumexp", &logsumexp, "log(sum(exp(x))) over axis, computed stably.");
  m.def("argmax", [](nb::handle x, std::optional<int> axis, bool keepdims) { return argmax(as_var(x), axis, keepdims); },
        nb::arg("x"), nb::arg("axis") = nb::none(), nb::arg("keepdims") = false,
        "The index of the largest element along axis (None: in the flattened tensor).");
  m.def("argmin", [](nb::handle x, std::optional<int> axis, bool keepdims) { return argmin(as_var(x), axis, keepdims); },
        nb::arg("x"), nb::arg("axis") = nb::none(), nb::arg("keepdims") = false,
        "The index of the smallest element along axis (None: in the flattened tensor).");
}

void bind_linalg_nn(nb::module_& m) {
  m.def("dot", [](nb::handle a, nb::handle b) { return dot(as_var(a), as_var(b)); }, nb::arg("a"), nb::arg("b"),
        "NumPy's dot for vectors and matrices.");
  m.def("batched_dot", [](nb::handle a, nb::handle b) { return batched_dot(as_var(a), as_var(b)); }, nb::arg("a"),
        nb::arg("b"), "Matrix products of a batch: (B, m, k) x (B, k, n) -> (B, m, n).");
  m.def("matmul", [](nb::handle a, nb::handle b) { return matmul(as_var(a), as_var(b)); }, nb::arg("a"),
        nb::arg("b"), "NumPy's matmul for operands of rank 1 to 3.");
  m.def("outer", [](nb::handle a, nb::handle b) { return outer(as_var(a), as_var(b)); }, nb::arg("a"), nb::arg("b"),
        "out[i, j] = a[i] * b[j] of the flattened operands.");
  m.def("softmax", [](nb::handle x, int axis) { return softmax(as_var(x), axis); }, nb::arg("x"),
        nb::arg("axis") = -1, "exp(x) / sum(exp(x)) along axis, computed stably.");
  m.def("log_softmax", [](nb::handle x, int axis) { return log_softmax(as_var(x), axis); }, nb::arg("x"),
        nb::arg("axis") = -1, "log(softmax(x)) along axis, computed stably.");
}

void bind_shapes(nb::module_& m) {
  m.def("reshape", [](nb::handle x, nb::handle shape) { return reshape(as_var(x), as_shape(shape)); }, nb::arg("x"),
        nb::arg("shape"), "NumPy's reshape; one dim may be -1.");
  m.def("flatten", [](nb::handle x, int ndim) { return flatten(as_var(x), ndim); }, nb::arg("x"),
        nb::arg("ndim") = 1, "Keeps the first ndim-1 axes and merges the rest.");
  m.def("transpose", [](nb::handle x, std::optional<std::vector<int>> axes) { return transpose(as_var(x), axes.value_or(std::vector<int>{})); },
        nb::arg("x"), nb::arg("axes") = nb::none(), "Permutes the axes; none given reverses them.");
  m.def("squeeze", [](nb::handle x, nb::handle axis) { return squeeze(as_var(x), as_axes(axis)); }, nb::arg("x"),
        nb::arg("axis") = nb::none(), "Removes size-1 axes (None: the statically broadcastable ones).");
  m.def("expand_dims", [](nb::handle x, int axis) { return expand_dims(as_var(x), axis); }, nb::arg("x"),
        nb::arg("axis"), "Inserts a size-1 axis at axis.");
  m.def("shape", [](nb::handle x) { return shape_of(as_var(x)); }, nb::arg("x"),
        "Theano's T.shape(x), x.shape: the shape as a symbolic int64 vector (x.shape[0] a scalar), read "
        "from x's metadata only; a constant where the compiler knows it.");
  m.def("concatenate", [](nb::handle xs, int axis) { return concatenate(as_vars(xs), axis); }, nb::arg("tensors"),
        nb::arg("axis") = 0, "Joins tensors along an existing axis.");
  m.def("stack", [](nb::handle xs, int axis) { return stack(as_vars(xs), axis); }, nb::arg("tensors"),
        nb::arg("axis") = 0, "Joins tensors of one shape along a new axis.");
  m.def("split", [](nb::handle x, std::vector<int64_t> sizes, int axis) { return split(as_var(x), sizes, axis); },
        nb::arg("x"), nb::arg("sizes"), nb::arg("axis") = 0,
        "Cuts x along axis into consecutive pieces of the given sizes.");
  m.def("set_subtensor", [](const Var& indexed, nb::handle v) { return set_subtensor(indexed, as_var(v)); },
        nb::arg("indexed"), nb::arg("value"),
        "A copy of x with x[index] replaced by value, written set_subtensor(x[index], value).");
  m.def("inc_subtensor", [](const Var& indexed, nb::handle v) { return inc_subtensor(indexed, as_var(v)); },
        nb::arg("indexed"), nb::arg("value"),
        "A copy of x with value added to x[index] (repeated indices accumulate).");
  m.def("take", [](nb::handle x, nb::handle idx, std::optional<int> axis) { return take(as_var(x), as_var(idx), axis); },
        nb::arg("x"), nb::arg("indices"), nb::arg("axis") = nb::none(),
        "NumPy's take: the elements at integer indices along axis (None: of the flattened x).");
}

void bind_creation(nb::module_& m) {
  m.def("alloc",
        [](nb::handle v, nb::handle shape) {
          return has_symbolic_entry(shape) ? alloc_symbolic(as_var(v), shape) : alloc(as_var(v), as_shape(shape));
        },
        nb::arg("value"),
        nb::arg("shape"),
        "A tensor of the given shape holding value (broadcast); a dim may be x.shape[i], read when the function runs.");
  m.def("zeros",
        [](nb::handle shape, nb::handle dt) {
          return has_symbolic_entry(shape) ? alloc_symbolic(constant(0.0, opt_dtype(dt).value_or(floatX())), shape)
                                           : zeros(as_shape(shape), opt_dtype(dt));
        },
        nb::arg("shape"), nb::arg("dtype") = nb::none(),
        "A tensor of zeros (dtype: floatX); a dim may be x.shape[i] (Theano's zeros((x.shape[0], n))).");
  m.def("ones",
        [](nb::handle shape, nb::handle dt) {
          return has_symbolic_entry(shape) ? alloc_symbolic(constant(1.0, opt_dtype(dt).value_or(floatX())), shape)
                                           : ones(as_shape(shape), opt_dtype(dt));
        },
        nb::arg("shape"),
        nb::arg("dtype") = nb::none(), "A tensor of ones (dtype: floatX); a dim may be x.shape[i].");
  m.def("zeros_like", [](nb::handle x) { return zeros_like(as_var(x)); }, nb::arg("x"), "Zeros shaped and typed like x.");
  m.def("ones_like", [](nb::handle x) { return ones_like(as_var(x)); }, nb::arg("x"), "Ones shaped and typed like x.");
  m.def("fill", [](nb::handle like, nb::handle v) { return fill(as_var(like), as_var(v)); }, nb::arg("like"),
        nb::arg("value"), "Theano's fill: like's shape, value's dtype.");
  m.def("arange",
        [](nb::handle start, nb::handle stop, nb::handle step, nb::handle dt) {
          // Theano's arange(y.shape[0]): the indices of a dim known when the function runs.
          const bool from_zero = stop.is_none() || (!nb::isinstance<Var>(start) && nb::cast<double>(start) == 0);
          nb::handle n = stop.is_none() ? start : stop;
          if (nb::isinstance<Var>(n) && from_zero && !nb::isinstance<Var>(step) && nb::cast<double>(step) == 1 &&
              dt.is_none())
            return arange(nb::cast<Var>(n));
          for (nb::handle b : {start, stop, step}) reject_symbolic_size(b);  // a clear error otherwise
          const double first = nb::cast<double>(start), by = nb::cast<double>(step);
          if (stop.is_none()) return arange(0, first, by, opt_dtype(dt));
          return arange(first, nb::cast<double>(stop), by, opt_dtype(dt));
        },
        nb::arg("start"), nb::arg("stop") = nb::none(), nb::arg("step") = 1, nb::arg("dtype") = nb::none(),
        "NumPy's arange (int64 for whole numbers, else floatX); arange(x.shape[i]) gives the indices of x's axis i "
        "(int64), its size read when the function runs.");
  m.def("eye", [](int64_t n, std::optional<int64_t> m_, int64_t k, nb::handle dt) { return eye(n, m_, k, opt_dtype(dt)); },
        nb::arg("n"), nb::arg("m") = nb::none(), nb::arg("k") = 0, nb::arg("dtype") = nb::none(),
        "An n x m tensor with ones on the k-th diagonal.");
  m.def("gpu_from_host", [](nb::handle x) { return gpu_from_host(as_var(x)); }, nb::arg("x"),
        "x on the function's device: as an output it stays there (no copy back); nothing on device=cpu.");
}

void bind_grad(nb::module_& m) {
  m.def("grad",
        [](const Var& cost, nb::handle wrt) -> nb::object {
          if (nb::isinstance<Var>(wrt)) return nb::cast(grad(cost, nb::cast<Var>(wrt)));
          return nb::cast(grad(cost, as_vars(wrt)));
        },
        nb::arg("cost"), nb::arg("wrt"),
        "d cost / d wrt (Theano's grad): cost a 0-d float tensor, wrt a variable or a list of "
        "them (then a list of gradients). Each gradient has its variable's dtype and rank.");
  m.def("ifelse",
        [](nb::handle cond, nb::handle then_branch, nb::handle else_branch) -> nb::object {
          const bool many = !nb::isinstance<Var>(then_branch) && (nb::isinstance<nb::list>(then_branch) || nb::isinstance<nb::tuple>(then_branch));
          if (!many) return nb::cast(ifelse(as_var(cond), as_var(then_branch), as_var(else_branch)));
          return nb::cast(ifelse(as_var(cond), as_vars(then_branch), as_vars(else_branch)));
        },
        nb::arg("cond"), nb::arg("then_branch"), nb::arg("else_branch"),
        "then_branch if the scalar cond is nonzero, else else_branch, computing only the branch taken "
        "(Theano's lazy ifelse; where() computes both). Lists of values give a list of results.");
  m.def("stop_gradient", [](nb::handle x) { return stop_gradient(as_var(x)); }, nb::arg("x"),
        "x itself, treated as a constant by grad().");
  m.def("jacobian", [](const Var& y, const Var& x) { return jacobian(y, x); }, nb::arg("expression"), nb::arg("wrt"),
        "d y[i] / d x for a vector y of static length.");
  m.def("hessian", [](const Var& cost, const Var& x) { return hessian(cost, x); }, nb::arg("cost"), nb::arg("wrt"),
        "The matrix of second derivatives of a 0-d cost w.r.t. a vector of static length.");
  m.def("Lop", [](const Var& f, nb::handle wrt, const Var& v) { return Lop(f, as_vars(wrt), v); }, nb::arg("f"),
        nb::arg("wrt"), nb::arg("eval_points"), "The vector-Jacobian product v^T (d f / d w) for each w.");
}

}  // namespace

void bind_ops(nb::module_& m) {
  bind_elemwise(m);
  bind_reductions(m);
  bind_linalg_nn(m);
  bind_shapes(m);
  bind_creation(m);
  bind_grad(m);
}

}  // namespace tgc::python
