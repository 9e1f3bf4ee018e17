// BatchNormTraining and BatchNormGrad: type rules, reference evaluations (in double, over a
// contiguous copy seen as (outer, C, inner)) and BatchNormTraining's gradient rule.
#include "ops/norm/batch_norm.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "ops/core/apply.h"
#include "ops/core/node.h"
#include "ops/gradient/build.h"
#include "ops/reduce/reduce_axes.h"
#include "ops/reduce/reduce_grad.h"
#include "ops/shape/dimshuffle.h"
#include "runtime/error.h"

namespace tgc {
namespace {

// Checks that `t` is a float of x's dtype; `role` names it for the message.
void check_like_x(const Type& t, const Type& x, const std::string& role, int rank, const std::string& op) {
  if (t.dtype != x.dtype || t.ndim() != rank)
    throw TypeError(fmt::format("{}: {} is {}, not a {} of x's dtype {}", op, role, t.str(), rank_name(rank),
                                dtype_name(x.dtype)),
                    op, "batch normalization's operands share x's float dtype; gamma, beta and the statistics are (C,)");
}

// x's type checked (a float of rank 2 or more, the channel axis inside it); returns C's static dim.
int64_t check_x(const Type& x, int axis, const std::string& op) {
  if (!is_float(x.dtype) || x.ndim() < 2)
    throw TypeError(fmt::format("{}: x is {}, not a float tensor of rank 2 or more", op, x.str()), op,
                    "batch normalization takes (N, C) or rank-4 activations");
  if (axis < 0 || axis >= x.ndim())
    throw TypeError(fmt::format("{}: the channel axis {} is outside x's rank {}", op, axis, x.ndim()), op,
                    "the channel axis is 1 for (N, C, ...) and the last one for (N, ..., C)");
  return x.shape[axis];
}

// A (C,) vector's static dim against C's (either may be unknown); returns the known one.
int64_t check_channels(int64_t c, const Type& v, const std::string& role, const std::string& op) {
  const int64_t d = v.shape[0];
  if (c >= 0 && d >= 0 && c != d)
    throw ShapeError(fmt::format("{}: {} has {} entries, x has {} channels", op, role, d, c), op,
                     "gamma, beta and the statistics have one entry per channel");
  return c >= 0 ? c : d;
}

// x's shape as (outer, C, inner) around the channel axis, and a loop over its elements.
struct Channels {
  int64_t outer = 1, c = 1, inner = 1;
  Channels(const Shape& s, int axis) {
    for (int d = 0; d < static_cast<int>(s.size()); ++d) (d < axis ? outer : d > axis ? inner : c) *= s[d];
  }
  int64_t count() const { return outer * inner; }
  template <typename Fn>
  void each(Fn&& fn) const {  // fn(flat index, channel)
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t ch = 0; ch < c; ++ch)
        for (int64_t i = 0; i < inner; ++i) fn((o * c + ch) * inner + i, ch);
  }
};

std::vector<double> doubles(const Tensor& t) {
  const Tensor d = t.astype(DType::Float64).contiguous();
  return std::vector<double>(d.data<double>(), d.data<double>() + d.numel());
}

Tensor as_tensor(const std::vector<double>& v, const Shape& shape, DType dtype) {
  return Tensor::from_vector(v, shape).astype(dtype);
}

}  // namespace

std::vector<int> batch_norm_reduced_axes(int channel_axis, int ndim) {
  std::vector<int> axes;
  for (int d = 0; d < ndim; ++d)
    if (d != channel_axis) axes.push_back(d);
  return axes;
}

std::vector<int> batch_norm_spread_pattern(int channel_axis, int ndim) {
  std::vector<int> pattern(static_cast<size_t>(ndim), -1);
  pattern[static_cast<size_t>(channel_axis)] = 0;
  return pattern;
}

// --- BatchNormOp ---

BatchNormOp::BatchNormOp(int channel_axis, double epsilon) : channel_axis_(channel_axis), epsilon_(epsilon) {
  TGC_INTERNAL_CHECK(channel_axis >= 0 && epsilon > 0, "batch norm op: a negative axis or a non-positive epsilon");
}

std::string BatchNormOp::name() const {
  return op_class() + brace_params({"axis=" + std::to_string(channel_axis()), fmt::format("epsilon={}", epsilon())});
}

std::vector<Type> BatchNormOp::infer_types(const std::vector<Type>& in) const {
  TGC_INTERNAL_CHECK(in.size() == roles().size() + 1, name() + ": operand count");
  const std::string op = user_name();
  const Type& x = in[0];
  int64_t c = check_x(x, channel_axis(), op);
  for (size_t i = 1; i < in.size(); ++i) {
    const std::string& role = roles()[i - 1];
    if (role != "dy") {
      check_like_x(in[i], x, role, 1, op);
      c = check_channels(c, in[i], role, op);
      continue;
    }
    check_like_x(in[i], x, role, x.ndim(), op);
    for (int d = 0; d < x.ndim(); ++d)
      if (x.shape[d] >= 0 && in[i].shape[d] >= 0 && x.shape[d] != in[i].shape[d])
        throw ShapeError(fmt::format("{}: dy {} and x {} differ in shape", op, in[i].str(), x.str()), op,
                         "dy is the gradient of y, of x's shape");
  }
  const Type vec(x.dtype, {c});
  return {Type(x.dtype, x.shape), vec, vec};
}

std::vector<Shape> BatchNormOp::infer_shapes(const std::vector<Shape>& in) const {
  TGC_INTERNAL_CHECK(in.size() == roles().size() + 1, name() + ": operand count");
  const std::string op = user_name();
  const Shape& x = in[0];
  TGC_INTERNAL_CHECK(channel_axis() < static_cast<int>(x.size()), op + ": channel axis outside x");
  const int64_t c = x[channel_axis()];
  for (size_t i = 1; i < in.size(); ++i) {
    const std::string& role = roles()[i - 1];
    if (role == "dy") {
      if (in[i] != x)
        throw ShapeError(fmt::format("{}: dy of shape {} and x of shape {} differ", op, shape_str(in[i]), shape_str(x)),
                         op, "dy is the gradient of y, of x's shape");
    } else if (in[i].size() != 1 || in[i][0] != c) {
      throw ShapeError(fmt::format("{}: {} has shape {}, x {} has {} channels", op, role, shape_str(in[i]),
                                   shape_str(x), c),
                       op, "gamma, beta and the statistics have one entry per channel");
    }
  }
  return {x, Shape{c}, Shape{c}};
}

// --- BatchNormTraining ---

const std::vector<std::string>& BatchNormTraining::roles() const {
  static const std::vector<std::string> r{"gamma", "beta"};
  return r;
}

void BatchNormTraining::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& x = inputs.at(0);
  infer_shapes({x.shape(), inputs.at(1).shape(), inputs.at(2).shape()});
  const Channels ch(x.shape(), channel_axis());
  const std::vector<double> xd = doubles(x), gamma = doubles(inputs.at(1)), beta = doubles(inputs.at(2));
  const auto n = static_cast<double>(ch.count());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> mean(static_cast<size_t>(ch.c), 0.0), var(static_cast<size_t>(ch.c), 0.0), y(xd.size());
  ch.each([&](int64_t i, int64_t c) { mean[c] += xd[i]; });
  for (double& m : mean) m = n > 0 ? m / n : nan;
  ch.each([&](int64_t i, int64_t c) { var[c] += (xd[i] - mean[c]) * (xd[i] - mean[c]); });
  for (double& v : var) v = n > 0 ? v / n : nan;
  ch.each([&](int64_t i, int64_t c) { y[i] = (xd[i] - mean[c]) / std::sqrt(var[c] + epsilon()) * gamma[c] + beta[c]; });
  const Shape vec{ch.c};
  outputs.at(0) = as_tensor(y, x.shape(), x.dtype());
  outputs.at(1) = as_tensor(mean, vec, x.dtype());
  outputs.at(2) = as_tensor(var, vec, x.dtype());
}

std::vector<VarPtr> BatchNormTraining::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  const VarPtr& x = node.inputs().at(0);
  const VarPtr& gamma = node.inputs().at(1);
  const VarPtr mean = node.output(1);
  const DType dtype = x->type().dtype;
  const int ndim = x->type().ndim();
  VarPtr gx, ggamma, gbeta;
  if (const VarPtr& gy = output_grads.at(0)) {
    std::vector<VarPtr> g = apply(std::make_shared<BatchNormGrad>(channel_axis(), epsilon()),
                                  {x, gradient::cast(gy, dtype), gamma, mean, node.output(2)});
    gx = g[0], ggamma = g[1], gbeta = g[2];
  }
  // The statistics' own gradients (a loss that reads the batch mean or variance): mean = sum(x) / n
  // gives dmean / n to every element; var = sum((x - mean)^2) / n gives dvar * 2 (x - mean) / n
  // (through the mean it gives nothing: the centred values sum to zero).
  auto spread = [&](const VarPtr& v) {
    return apply1(std::make_shared<DimShuffle>(batch_norm_spread_pattern(channel_axis(), ndim), user_name()),
                  {gradient::cast(v, dtype)});
  };
  const VarPtr n = reduce_grad::reduced_count(x, ReduceAxes(batch_norm_reduced_axes(channel_axis(), ndim)), dtype);
  auto add_term = [&](const VarPtr& term) {
    gx = gx ? gradient::add(gx, term) : reduce_grad::broadcast_like(term, x);
  };
  if (const VarPtr& gm = output_grads.at(1)) add_term(gradient::div(spread(gm), n));
  if (const VarPtr& gv = output_grads.at(2)) {
    const VarPtr centred = gradient::sub(x, spread(mean));
    add_term(gradient::div(gradient::mul(gradient::mul(spread(gv), gradient::scalar_like(2.0, x)), centred), n));
  }
  return {gx, ggamma, gbeta};
}

// --- BatchNormGrad ---

const std::vector<std::string>& BatchNormGrad::roles() const {
  static const std::vector<std::string> r{"dy", "gamma", "mean", "var"};
  return r;
}

void BatchNormGrad::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  std::vector<Shape> shapes;
  for (const Tensor& t : inputs) shapes.push_back(t.shape());
  infer_shapes(shapes);
  const Tensor& x = inputs.at(0);
  const Channels ch(x.shape(), channel_axis());
  const std::vector<double> xd = doubles(x), dy = doubles(inputs.at(1)), gamma = doubles(inputs.at(2)),
                            mean = doubles(inputs.at(3)), var = doubles(inputs.at(4));
  const auto n = static_cast<double>(ch.count());
  std::vector<double> invstd(static_cast<size_t>(ch.c)), dgamma(static_cast<size_t>(ch.c), 0.0),
      dbeta(static_cast<size_t>(ch.c), 0.0), dx(xd.size());
  for (int64_t c = 0; c < ch.c; ++c) invstd[c] = 1.0 / std::sqrt(var[c] + epsilon());
  auto xhat = [&](int64_t i, int64_t c) { return (xd[i] - mean[c]) * invstd[c]; };
  ch.each([&](int64_t i, int64_t c) {
    dbeta[c] += dy[i];
    dgamma[c] += dy[i] * xhat(i, c);
  });
  ch.each([&](int64_t i, int64_t c) {
    dx[i] = gamma[c] * invstd[c] * (dy[i] - dbeta[c] / n - xhat(i, c) * dgamma[c] / n);
  });
  const Shape vec{ch.c};
  outputs.at(0) = as_tensor(dx, x.shape(), x.dtype());
  outputs.at(1) = as_tensor(dgamma, vec, x.dtype());
  outputs.at(2) = as_tensor(dbeta, vec, x.dtype());
}

std::vector<VarPtr> BatchNormGrad::grad(const Node&, const std::vector<VarPtr>&) const {
  throw TypeError("batch normalization's gradient has no gradient of its own: second derivatives through "
                  "batch_normalization_train are not implemented",
                  user_name(),
                  "differentiate a loss of the normalized values once (as training does), or write the "
                  "normalization out with mean() and var() where higher derivatives are needed");
}

}  // namespace tgc
