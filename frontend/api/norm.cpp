// Frontend API: batch normalization. The training form is a BatchNormTraining op (ops/norm/) where
// x, gamma and beta share a float dtype — its gradient is then the two-pass formula of
// BatchNormGrad, and the compiler writes both out as fused reductions and elementwise kernels —
// otherwise that op's formula (compiler/passes/batch_norm_formula.h) written out here. The
// running statistics are shared-variable updates either way.
#include <tgc/norm.h>

#include <fmt/format.h>

#include <tgc/creation.h>
#include <tgc/math.h>
#include <tgc/reductions.h>
#include <tgc/shape.h>

#include "compiler/passes/batch_norm_formula.h"
#include "ops/core/apply.h"
#include "ops/norm/batch_norm.h"
#include "ops/reduce/reduce_grad.h"
#include "runtime/error.h"

namespace tgc {
namespace {

// x's channel axis (the one axis the statistics keep): 1 of (N, C) and NCHW, 3 of NHWC. The
// reduced axes and the pattern that lays a (C,) vector along it follow (ops/norm/batch_norm.h).
int channel_axis(const Var& x, const BatchNormOptions& o, const std::string& what) {
  const int nd = checked_ptr(x)->type().ndim();
  if (nd == 2) return 1;
  if (nd == 4) return o.layout == ConvLayout::NCHW ? 1 : 3;
  throw ShapeError(fmt::format("the input {} has rank {}, not 2 or 4", checked_ptr(x)->label(), nd), what,
                   "batch normalization takes (N, C) or rank-4 (N, C, H, W) / (N, H, W, C) activations");
}

// Checks the options and the per-channel vectors (gamma, beta and the two statistics, named
// by `roles`); returns x's channel axis.
int check_args(const Var& x, const std::vector<Var>& vectors, const char* const roles[4],
                       const BatchNormOptions& o, const std::string& what) {
  if (!(o.epsilon > 0))
    throw ValueError(fmt::format("epsilon={} is not positive", o.epsilon), what, "use a small positive value, e.g. 1e-5");
  if (!(o.momentum >= 0 && o.momentum <= 1))
    throw ValueError(fmt::format("momentum={} is outside [0, 1]", o.momentum), what,
                     "momentum is the weight of the batch statistic in the running one (PyTorch: 0.1)");
  const int channel = channel_axis(x, o, what);
  for (size_t i = 0; i < vectors.size(); ++i) {
    const int nd = checked_ptr(vectors[i])->type().ndim();
    if (nd != 1)
      throw ShapeError(fmt::format("{} '{}' has rank {}, not 1", roles[i], checked_ptr(vectors[i])->label(), nd), what,
                       "gamma, beta and the statistics are (C,) vectors, one entry per channel");
  }
  return channel;
}

}  // namespace

Var batch_normalization_test(const Var& x, const Var& gamma, const Var& beta, const Var& mean, const Var& var,
                             const BatchNormOptions& o) {
  const std::string what = "batch_normalization_test(" + checked_ptr(x)->label() + ")";
  static const char* const roles[4] = {"gamma", "beta", "mean", "var"};
  const int channel = check_args(x, {gamma, beta, mean, var}, roles, o, what);
  const std::vector<int> pattern = batch_norm_spread_pattern(channel, checked_ptr(x)->type().ndim());
  auto spread = [&](const Var& v) { return dimshuffle(v, pattern); };
  return (x - spread(mean)) * spread(gamma * rsqrt(var + o.epsilon)) + spread(beta);
}

BatchNormTrain batch_normalization_train(const Var& x, const Var& gamma, const Var& beta, const Shared& running_mean,
                                         const Shared& running_var, const BatchNormOptions& o) {
  const std::string what = "batch_normalization_train(" + checked_ptr(x)->label() + ")";
  static const char* const roles[4] = {"gamma", "beta", "running_mean", "running_var"};
  const int channel = check_args(x, {gamma, beta, running_mean, running_var}, roles, o, what);
  BatchNormTrain r;
  const DType dtype = checked_ptr(x)->type().dtype;
  const std::vector<VarPtr> in{checked_ptr(x), checked_ptr(gamma), checked_ptr(beta)};
  const bool one_float = (dtype == DType::Float32 || dtype == DType::Float64) &&
                         in[1]->type().dtype == dtype && in[2]->type().dtype == dtype;
  // Mixed or half dtypes: the op's formula itself, with the promotions of its elementwise ops.
  const std::vector<VarPtr> out = one_float ? tgc::apply(std::make_shared<BatchNormTraining>(channel, o.epsilon), in)
                                            : batch_norm_training_formula(channel, o.epsilon, in, floatX());
  r.y = Var(out[0]);
  r.mean = Var(out[1]);
  r.var = Var(out[2]);
  // n / (n - 1) from the count of reduced elements (a ReduceCount of x's shape, which may be
  // symbolic: no pass over the data, where a sum of ones was one more accumulator in the
  // statistics' kernel).
  const Var n(reduce_grad::reduced_count(in[0], batch_norm_reduced_axes(channel, in[0]->type().ndim()),
                                         r.var.ptr()->type().dtype));
  const Var unbiased = r.var * n / maximum(n - 1.0, 1.0);
  const double m = o.momentum;
  r.updates = {{running_mean, running_mean * (1.0 - m) + r.mean * m},
               {running_var, running_var * (1.0 - m) + unbiased * m}};
  return r;
}

}  // namespace tgc
