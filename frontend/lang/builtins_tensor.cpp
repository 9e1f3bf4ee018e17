// Builtin rows: reductions, linear algebra, softmax, shape manipulation, indexing, joining
// and symbolic creation (tgc/reductions.h, linalg.h, nn.h, shape.h, indexing.h, join.h,
// creation.h).
#include <fmt/format.h>

#include "frontend/lang/builtins.h"
#include "frontend/lang/convert.h"

namespace tgc::lang {

namespace {

template <Var (*F)(const Var&, Axes, bool)>
Value reduce(Args& a) {
  return F(a.var("x"), a.axes("axis"), a.boolean("keepdims"));
}

template <Var (*F)(const Var&, std::optional<int>, bool)>
Value arg_reduce(Args& a) {
  return F(a.var("x"), a.opt_axis("axis"), a.boolean("keepdims"));
}

template <Var (*F)(const Var&, const Var&)>
Value binary_var(Args& a) {
  return F(a.var("a"), a.var("b"));
}

std::vector<int> to_ints(const std::vector<int64_t>& v, Args& a) {
  std::vector<int> out;
  for (int64_t x : v) {
    if (x < -(int64_t{1} << 30) || x > (int64_t{1} << 30))
      a.fail_at(a.rest().empty() ? a.pos : a.rest()[0].pos, fmt::format("axis {} is out of range", x),
                "axes are small integers such as 0, 1 or -1");
    out.push_back(static_cast<int>(x));
  }
  return out;
}

// Theano's dimshuffle pattern: input axes and 'x' for a new broadcastable axis, given as
// several arguments or as one list/tuple.
std::vector<int> dimshuffle_pattern(Args& a) {
  std::vector<ArgValue> entries = a.rest();
  if (entries.size() == 1 && entries[0].value.is_sequence()) {
    const ArgValue whole = entries[0];
    entries.clear();
    for (const Value& v : whole.value.items()) entries.push_back(ArgValue{v, whole.pos, nullptr});
  }
  std::vector<int> pattern;
  for (const ArgValue& e : entries) {
    if (e.value.is_string() && e.value.as_string() == "x") {
      pattern.push_back(-1);
    } else if (e.value.is_int() && e.value.as_int() >= 0 && e.value.as_int() < (int64_t{1} << 30)) {
      pattern.push_back(static_cast<int>(e.value.as_int()));
    } else {
      a.fail_at(e.pos, "a dimshuffle pattern entry must be an input axis (0, 1, ...) or 'x', got " + e.value.describe(),
                "e.g. x.dimshuffle(1, 0) or x.dimshuffle('x', 0)");
    }
  }
  return pattern;
}

Value reshape_(Args& a) {
  std::vector<int64_t> shape = a.rest_ints();
  const Pos where = a.rest().empty() ? a.pos : a.rest()[0].pos;
  int64_t product = 1;
  for (int64_t d : shape) {
    if (d < -1) a.fail_at(where, fmt::format("reshape: invalid size {}", d), "sizes are >= 0, with at most one -1 for the size inferred");
    if (d >= 0 && __builtin_mul_overflow(product, d, &product))
      a.fail_at(where, "reshape: the sizes' product does not fit in 64 bits", "no tensor has that many elements");
  }
  return reshape(a.var("x"), shape);
}

Value alloc_(Args& a) {
  std::vector<int64_t> shape = a.rest_ints();
  check_shape(shape, a.ctx, a.rest().empty() ? a.pos : a.rest()[0].pos, "alloc");
  return alloc(a.var("value"), shape);
}

Value split_(Args& a) {
  std::vector<int64_t> sizes = a.int_list("sizes");
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0) a.fail("sizes", fmt::format("split: negative size {}", s), "sizes are >= 0 and add up to the axis' length");
    if (__builtin_add_overflow(total, s, &total))
      a.fail("sizes", "split: the sizes add up to more than 2**63 - 1", "sizes add up to the axis' length");
  }
  return Value::vars(split(a.var("x"), sizes, a.axis_int("axis")));
}

}  // namespace

std::vector<BuiltinRow> tensor_builtins(Family family) {
  switch (family) {
    case Family::Reductions:
      return {
          {"sum", "x, axis=None, keepdims=false", "sum over axes (all when None); integers and bools sum to int64", reduce<&tgc::sum>, kTensorMethod},
          {"prod", "x, axis=None, keepdims=false", "product over axes", reduce<&tgc::prod>, kTensorMethod},
          {"mean", "x, axis=None, keepdims=false", "mean over axes; integers give floatX", reduce<&tgc::mean>, kTensorMethod},
          {"max", "x, axis=None, keepdims=false", "maximum over axes", reduce<&tgc::max>, kTensorMethod},
          {"min", "x, axis=None, keepdims=false", "minimum over axes", reduce<&tgc::min>, kTensorMethod},
          {"all", "x, axis=None, keepdims=false", "whether all are nonzero", reduce<&tgc::all>, kTensorMethod},
          {"any", "x, axis=None, keepdims=false", "whether any is nonzero", reduce<&tgc::any>, kTensorMethod},
          {"argmax", "x, axis=None, keepdims=false", "index of the maximum along axis (flattened when None)", arg_reduce<&tgc::argmax>, kTensorMethod},
          {"argmin", "x, axis=None, keepdims=false", "index of the minimum along axis", arg_reduce<&tgc::argmin>, kTensorMethod},
          {"logsumexp", "x, axis=None, keepdims=false", "log(sum(exp(x))), computed stably", reduce<&tgc::logsumexp>},
      };
    case Family::LinearAlgebra:
      return {
          {"dot", "a, b", "NumPy's dot for vectors and matrices", binary_var<&tgc::dot>, kTensorMethod},
          {"matmul", "a, b", "NumPy's matmul (the @ operator) for ranks 1 to 3", binary_var<&tgc::matmul>},
          {"batched_dot", "a, b", "(B, m, k) x (B, k, n) -> (B, m, n)", binary_var<&tgc::batched_dot>},
          {"outer", "a, b", "out[i, j] = a[i] * b[j] of the flattened operands", binary_var<&tgc::outer>},
      };
    case Family::NeuralNet:
      return {
          {"softmax", "x, axis=-1", "exp(x) / sum(exp(x)) along axis, computed stably",
           [](Args& a) -> Value { return softmax(a.var("x"), a.axis_int("axis")); }},
          {"log_softmax", "x, axis=-1", "log(softmax(x)) along axis, computed stably",
           [](Args& a) -> Value { return log_softmax(a.var("x"), a.axis_int("axis")); }},
      };
    case Family::Shape:
      return {
          {"reshape", "x, *shape", "NumPy's reshape; one size may be -1: reshape(x, 2, -1) or x.reshape((2, -1))", reshape_, kTensorMethod},
          {"flatten", "x, ndim=1", "Theano's flatten: keeps ndim-1 leading axes and merges the rest",
           [](Args& a) -> Value { return flatten(a.var("x"), a.axis_int("ndim")); }, kTensorMethod},
          {"dimshuffle", "x, *pattern", "Theano's dimshuffle: x.dimshuffle(1, 0), x.dimshuffle('x', 0)",
           [](Args& a) -> Value { return dimshuffle(a.var("x"), dimshuffle_pattern(a)); }, kTensorMethod},
          {"transpose", "x, *axes", "permutes the axes; no axes reverses them (x.T)",
           [](Args& a) -> Value { return transpose(a.var("x"), to_ints(a.rest_ints(), a)); }, kTensorMethod},
          {"squeeze", "x, axis=None", "removes size-1 axes (all statically known ones when None)",
           [](Args& a) -> Value { return squeeze(a.var("x"), a.axes("axis")); }, kTensorMethod},
          {"expand_dims", "x, axis", "inserts a size-1 axis at axis",
           [](Args& a) -> Value { return expand_dims(a.var("x"), a.axis_int("axis")); }},
          {"shape_of", "x", "x's shape as a symbolic int64 vector, read when the function runs (x.shape is the dims known now)",
           [](Args& a) -> Value { return shape_of(a.var("x")); }},
      };
    case Family::Indexing:
      return {
          {"set_subtensor", "x, y", "a copy of the tensor indexed by x with x replaced by y: set_subtensor(a[0], 5)",
           [](Args& a) -> Value { return set_subtensor(a.var("x"), a.var("y")); }, Receiver::None,
           OnConcrete::ComputeIndexed},
          {"inc_subtensor", "x, y", "a copy of the tensor indexed by x with y added to x",
           [](Args& a) -> Value { return inc_subtensor(a.var("x"), a.var("y")); }, Receiver::None,
           OnConcrete::ComputeIndexed},
          {"take", "x, indices, axis=None", "the elements at integer indices along axis (flattened when None)",
           [](Args& a) -> Value { return take(a.var("x"), a.var("indices"), a.opt_axis("axis")); }, kTensorMethod},
      };
    case Family::Join:
      return {
          {"concatenate", "tensors, axis=0", "joins a list of tensors along an existing axis",
           [](Args& a) -> Value { return concatenate(a.vars("tensors"), a.axis_int("axis")); }},
          {"stack", "tensors, axis=0", "joins a list of tensors of one shape along a new axis",
           [](Args& a) -> Value { return stack(a.vars("tensors"), a.axis_int("axis")); }},
          {"split", "x, sizes, axis=0", "a list of consecutive pieces of x of the given sizes along axis", split_,
           Receiver::None, OnConcrete::ComputeList},
      };
    case Family::Creation:
      return {
          {"alloc", "value, *shape", "a tensor of the given static shape filled with value: alloc(0.0, 3, 4)", alloc_},
          {"zeros_like", "x", "zeros of x's shape and dtype", [](Args& a) -> Value { return zeros_like(a.var("x")); }},
          {"ones_like", "x", "ones of x's shape and dtype", [](Args& a) -> Value { return ones_like(a.var("x")); }},
          {"fill", "like, value", "Theano's fill: like's shape, value's dtype",
           [](Args& a) -> Value { return fill(a.var("like"), a.var("value")); }},
      };
    case Family::Inputs: case Family::Values: case Family::Lists: case Family::Devices: case Family::Math: case Family::Gradients:
    case Family::Functions:
    case Family::Random: case Family::Distributed: case Family::ControlFlow: case Family::Convolution:
      break;
  }
  return {};
}

}  // namespace tgc::lang
