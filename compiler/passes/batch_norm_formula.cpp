// The formulas of batch normalization's ops, built from Mean, Sum, DimShuffle and Elemwise nodes.
#include "compiler/passes/batch_norm_formula.h"

#include <memory>

#include "compiler/passes/stabilize_patterns.h"
#include "ops/core/apply.h"
#include "ops/reduce/careduce.h"
#include "ops/reduce/mean.h"
#include "ops/reduce/reduce_grad.h"
#include "ops/shape/dimshuffle.h"
#include "ops/subtensor/subtensor.h"

namespace tgc {
namespace {

using K = ScalarOpKind;

// The pieces both formulas use, for a rank-`ndim` x; `floatx` is the Elemwise and Mean nodes'
// floatX (the dtype an integer x's mean takes).
struct Pieces {
  const stabilize_patterns::Builder b;
  const ReduceAxes axes;
  const std::vector<int> pattern;
  const DType floatx;

  Pieces(int channel_axis, const VarPtr& x, DType floatx_)
      : b(floatx_),
        axes(batch_norm_reduced_axes(channel_axis, x->type().ndim())),
        pattern(batch_norm_spread_pattern(channel_axis, x->type().ndim())),
        floatx(floatx_) {}
  VarPtr spread(const VarPtr& v) const {
    return apply1(std::make_shared<DimShuffle>(pattern, "batch_normalization_train"), {v});
  }
  VarPtr mean(const VarPtr& v) const { return apply1(std::make_shared<Mean>(axes, false, floatx), {v}); }
  VarPtr sum(const VarPtr& v) const { return apply1(std::make_shared<CAReduce>(ReduceKind::Sum, axes, false), {v}); }
  VarPtr ew(K kind, std::vector<VarPtr> in) const { return b.ew(kind, std::move(in)); }
  VarPtr invstd(const VarPtr& var, double epsilon) const {
    return ew(K::Rsqrt, {ew(K::Add, {var, Variable::constant(Tensor::full(var->type().dtype, Shape{}, epsilon))})});
  }
};

}  // namespace

std::vector<VarPtr> batch_norm_training_formula(int channel_axis, double epsilon, const std::vector<VarPtr>& in,
                                                DType floatx) {
  const Pieces p(channel_axis, in.at(0), floatx);
  VarPtr mean = p.mean(in[0]);
  VarPtr centred = p.ew(K::Sub, {in[0], p.spread(mean)});
  VarPtr var = p.mean(p.ew(K::Square, {centred}));
  VarPtr scale = p.ew(K::Mul, {in.at(1), p.invstd(var, epsilon)});
  VarPtr y = p.ew(K::Add, {p.ew(K::Mul, {centred, p.spread(scale)}), p.spread(in.at(2))});
  return {y, mean, var};
}

std::vector<VarPtr> batch_norm_training_one_pass(const BatchNormTraining& op, const std::vector<VarPtr>& in) {
  const VarPtr& x = in.at(0);
  const DType t = x->type().dtype;
  const Pieces p(op.channel_axis(), x, t);
  // k: x[0:1, :, 0:1, 0:1] (the channel axis whole) summed over the reduced axes, a (C,)
  // vector of each channel's first element; the slices (not integer indices) make an empty
  // batch's k zeros rather than an index error.
  IndexSpec first;
  for (int a = 0; a < x->type().ndim(); ++a)
    first.entries.push_back(a == op.channel_axis() ? IndexEntry::slice() : IndexEntry::slice(0, 1));
  const VarPtr k = p.sum(apply1(std::make_shared<Subtensor>(first), {x}));
  const VarPtr k64 = p.b.cast(k, DType::Float64);
  const VarPtr d = p.ew(K::Sub, {p.b.cast(x, DType::Float64), p.spread(k64)});
  const VarPtr n = reduce_grad::reduced_count(x, p.axes, DType::Float64);
  const VarPtr dmean = p.ew(K::TrueDiv, {p.sum(d), n});
  const VarPtr square_mean = p.ew(K::TrueDiv, {p.sum(p.ew(K::Square, {d})), n});
  const VarPtr zero = Variable::constant(Tensor::full(DType::Float64, Shape{}, 0.0));
  const VarPtr mean = p.b.cast(p.ew(K::Add, {k64, dmean}), t);
  const VarPtr var = p.b.cast(p.ew(K::Maximum, {p.ew(K::Sub, {square_mean, p.ew(K::Square, {dmean})}), zero}), t);
  const VarPtr scale = p.ew(K::Mul, {in.at(1), p.invstd(var, op.epsilon())});
  const VarPtr y = p.ew(K::Add, {p.ew(K::Mul, {p.ew(K::Sub, {x, p.spread(mean)}), p.spread(scale)}), p.spread(in.at(2))});
  return {y, mean, var};
}

std::vector<VarPtr> batch_norm_grad_formula(const BatchNormGrad& op, const std::vector<VarPtr>& in) {
  const VarPtr& x = in.at(0);
  const VarPtr& dy = in.at(1);
  const Pieces p(op.channel_axis(), x, x->type().dtype);  // a float x: floatX plays no part
  VarPtr invstd = p.invstd(in.at(4), op.epsilon());
  VarPtr xhat = p.ew(K::Mul, {p.ew(K::Sub, {x, p.spread(in.at(3))}), p.spread(invstd)});
  VarPtr dbeta = p.sum(dy);
  VarPtr dgamma = p.sum(p.ew(K::Mul, {dy, xhat}));
  VarPtr n = reduce_grad::reduced_count(x, p.axes, x->type().dtype);
  VarPtr mean_dy = p.spread(p.ew(K::TrueDiv, {dbeta, n}));
  VarPtr mean_dy_xhat = p.spread(p.ew(K::TrueDiv, {dgamma, n}));
  VarPtr dx = p.ew(K::Mul, {p.spread(p.ew(K::Mul, {in.at(2), invstd})),
                            p.ew(K::Sub, {p.ew(K::Sub, {dy, mean_dy}), p.ew(K::Mul, {xhat, mean_dy_xhat})})});
  return {dx, dgamma, dbeta};
}

}  // namespace tgc
