// BatchNormTraining and BatchNormGrad (ops/norm/batch_norm.h): the reference performs against
// the formula evaluated op by op (NCHW, NHWC and (N, C), strided operands); BatchNormGrad
// against the gradient of that formula as autodiff builds it; the gradient of the statistics
// themselves (verify_grad); compiled functions on the cpu (the ops decomposed and fused) against
// the reference evaluation; type, shape and second-derivative errors; the codecs.
#include "ops/norm/batch_norm.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tgc/grad.h>
#include <tgc/tgc.h>

#include "ops/core/apply.h"
#include "ops/core/node.h"
#include "runtime/random.h"
#include "support/graph_eval.h"
#include "support/op_codec_round_trip.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;

constexpr double kEps = 1e-3;

struct Layout {
  Shape shape;
  int channel_axis;
};

const Layout kLayouts[] = {{{3, 4, 2, 5}, 1}, {{3, 2, 5, 4}, 3}, {{6, 4}, 1}};

Tensor randn(const Shape& s, int64_t seed) { return RandomState(seed).randn(s); }

// The training form written with the public API (what batch_normalization_train built before
// it became an op): mean, biased variance of the centred values, y.
struct Formula {
  Var y, mean, var;
};
Formula formula(const Var& x, const Var& gamma, const Var& beta, int channel_axis) {
  const int nd = x.ptr()->type().ndim();
  const std::vector<int> axes = batch_norm_reduced_axes(channel_axis, nd);
  const std::vector<int> spread = batch_norm_spread_pattern(channel_axis, nd);
  Formula f;
  f.mean = mean(x, Axes{axes});
  const Var centred = x - dimshuffle(f.mean, spread);
  f.var = mean(square(centred), Axes{axes});
  f.y = centred * dimshuffle(gamma * rsqrt(f.var + kEps), spread) + dimshuffle(beta, spread);
  return f;
}

std::vector<Tensor> perform(const Op& op, const std::vector<Tensor>& in) {
  std::vector<Tensor> out(3);
  op.perform(in, out);
  return out;
}

TEST(BatchNormTraining, PerformIsTheFormula) {
  for (const Layout& l : kLayouts) {
    const int64_t c = l.shape[l.channel_axis];
    const Tensor xv = RandomState(1).normal(2.0, 3.0, l.shape), gv = randn({c}, 2), bv = randn({c}, 3);
    Var x = tensor("x", DType::Float64, std::vector<int64_t>(l.shape.begin(), l.shape.end()));
    Var gamma = vector("gamma", DType::Float64), beta = vector("beta", DType::Float64);
    const Formula f = formula(x, gamma, beta, l.channel_axis);
    test::GraphEval eval({{x, xv}, {gamma, gv}, {beta, bv}});
    const std::vector<Tensor> got = perform(BatchNormTraining(l.channel_axis, kEps), {xv, gv, bv});
    EXPECT_TRUE(tensors_allclose(got[0], eval(f.y), 1e-12, 1e-12)) << shape_str(l.shape);
    EXPECT_TRUE(tensors_allclose(got[1], eval(f.mean), 1e-12, 1e-12));
    EXPECT_TRUE(tensors_allclose(got[2], eval(f.var), 1e-12, 1e-12));
    // float32 in, float32 out; a strided x gives the same values.
    const std::vector<Tensor> f32 = perform(BatchNormTraining(l.channel_axis, kEps),
                                            {xv.astype(DType::Float32), gv.astype(DType::Float32), bv.astype(DType::Float32)});
    EXPECT_EQ(f32[0].dtype(), DType::Float32);
    EXPECT_TRUE(tensors_allclose(f32[0], got[0].astype(DType::Float32), 1e-5, 1e-5));
  }
  const Tensor xv = randn({4, 6}, 4), gv = randn({4}, 5), bv = randn({4}, 6);
  const Tensor xt = xv.transpose();  // (6, 4), strided
  const std::vector<Tensor> a = perform(BatchNormTraining(1, kEps), {xt, gv, bv});
  const std::vector<Tensor> b = perform(BatchNormTraining(1, kEps), {xt.copy(), gv, bv});
  EXPECT_TRUE(tensors_equal(a[0], b[0]));
}

// BatchNormGrad is the gradient of the formula: (dx, dgamma, dbeta) of sum(y * dy) as
// tgc::grad differentiates the formula node by node.
TEST(BatchNormGrad, PerformIsTheGradientOfTheFormula) {
  for (const Layout& l : kLayouts) {
    const int64_t c = l.shape[l.channel_axis];
    const Tensor xv = randn(l.shape, 7), dyv = randn(l.shape, 8), gv = randn({c}, 9), bv = randn({c}, 10);
    Var x = tensor("x", DType::Float64, std::vector<int64_t>(l.shape.begin(), l.shape.end()));
    Var dy = tensor("dy", DType::Float64, std::vector<int64_t>(l.shape.begin(), l.shape.end()));
    Var gamma = vector("gamma", DType::Float64), beta = vector("beta", DType::Float64);
    const Formula f = formula(x, gamma, beta, l.channel_axis);
    const std::vector<Var> g = grad(sum(f.y * dy), {x, gamma, beta});
    test::GraphEval eval({{x, xv}, {dy, dyv}, {gamma, gv}, {beta, bv}});
    const std::vector<Tensor> got =
        perform(BatchNormGrad(l.channel_axis, kEps), {xv, dyv, gv, eval(f.mean), eval(f.var)});
    for (int i = 0; i < 3; ++i)
      EXPECT_TRUE(tensors_allclose(got[i], eval(g[i]), 1e-10, 1e-10)) << shape_str(l.shape) << " output " << i;
  }
}

// A loss that reads the batch statistics as well as y: the op's gradient adds their terms.
TEST(BatchNormTraining, GradientThroughTheStatistics) {
  for (const Layout& l : {kLayouts[0], kLayouts[1]}) {
    const int64_t c = l.shape[l.channel_axis];
    const std::vector<int> spread = batch_norm_spread_pattern(l.channel_axis, 4);
    EXPECT_NO_THROW(verify_grad(
        [&](const std::vector<Var>& v) {
          std::vector<VarPtr> out = apply(std::make_shared<BatchNormTraining>(l.channel_axis, kEps),
                                          {v[0].ptr(), v[1].ptr(), v[2].ptr()});
          return Var(out[0]) + dimshuffle(Var(out[1]) * 2.0, spread) + dimshuffle(square(Var(out[2])), spread);
        },
        {randn(l.shape, 11), randn({c}, 12), randn({c}, 13)}))
        << shape_str(l.shape);
  }
}

// Compiled on the cpu (decompose_for_fusion writes the ops out, fusion makes kernels of them):
// the values and gradients of the reference evaluation.
TEST(BatchNormTraining, CompiledFunctionsMatchTheReference) {
  for (const Layout& l : kLayouts) {
    for (DType dtype : {DType::Float64, DType::Float32}) {
      const int64_t c = l.shape[l.channel_axis];
      Var x = tensor("x", dtype, std::vector<int64_t>(l.shape.begin(), l.shape.end()));
      Var gamma = vector("gamma", dtype), beta = vector("beta", dtype);
      std::vector<VarPtr> bn = apply(std::make_shared<BatchNormTraining>(l.channel_axis, kEps),
                                     {x.ptr(), gamma.ptr(), beta.ptr()});
      const Var y(bn[0]);
      const Var loss = sum(square(y) * constant(randn(l.shape, 14).astype(dtype)));
      std::vector<Var> outs{y, Var(bn[1]), Var(bn[2])};
      for (const Var& g : grad(loss, {x, gamma, beta})) outs.push_back(g);
      const Tensor xv = randn(l.shape, 15).astype(dtype), gv = randn({c}, 16).astype(dtype),
                   bv = randn({c}, 17).astype(dtype);
      std::vector<Tensor> fast = function({x, gamma, beta}, outs)(xv, gv, bv);
      test::GraphEval eval({{x, xv}, {gamma, gv}, {beta, bv}});
      const double tol = dtype == DType::Float64 ? 1e-10 : 2e-4;
      for (size_t i = 0; i < outs.size(); ++i)
        EXPECT_TRUE(tensors_allclose(fast[i], eval(outs[i]), tol, tol))
            << shape_str(l.shape) << " " << dtype_name(dtype) << " output " << i << "\n" << fast[i].str() << "\n"
            << eval(outs[i]).str();
    }
  }
}

TEST(BatchNormTraining, TypeAndShapeErrors) {
  const BatchNormTraining op(1, kEps);
  const Type x(DType::Float32, {8, 4}), v(DType::Float32, {4});
  EXPECT_EQ(op.infer_types({x, v, v})[1], Type(DType::Float32, {4}));
  try {
    op.infer_types({x, Type(DType::Float64, {4}), v});
    ADD_FAILURE() << "no error";
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("gamma is float64 vector (4,), not a vector of x's dtype float32"));
  }
  EXPECT_THROW(op.infer_types({x, Type(DType::Float32, {5}), v}), ShapeError);
  EXPECT_THROW(op.infer_types({Type(DType::Int32, {8, 4}), v, v}), TypeError);
  EXPECT_THROW(BatchNormTraining(2, kEps).infer_types({x, v, v}), TypeError);  // no axis 2
  try {
    perform(op, {randn({8, 4}, 1), randn({3}, 2), randn({4}, 3)});
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("has 4 channels"));
  }
  EXPECT_THROW(perform(BatchNormGrad(1, kEps), {randn({8, 4}, 1), randn({8, 3}, 2), randn({4}, 3), randn({4}, 4),
                                                randn({4}, 5)}),
               ShapeError);  // dy is not x's shape
}

TEST(BatchNormGrad, SecondDerivativesAreAClearError) {
  Var x = matrix("x", DType::Float64), gamma = vector("gamma", DType::Float64), beta = vector("beta", DType::Float64);
  std::vector<VarPtr> bn = apply(std::make_shared<BatchNormTraining>(1, kEps), {x.ptr(), gamma.ptr(), beta.ptr()});
  const Var gx = grad(sum(square(Var(bn[0]))), {x})[0];
  try {
    grad(sum(gx), {x});
    ADD_FAILURE() << "no error";
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("second derivatives through batch_normalization_train are not implemented"));
  }
}

TEST(BatchNormCodec, RoundTrip) {
  for (int axis : {1, 3})
    for (double eps : {1e-5, 1e-3, 0.1}) {
      testing::expect_codec_round_trip(BatchNormTraining(axis, eps));
      testing::expect_codec_round_trip(BatchNormGrad(axis, eps));
    }
}

}  // namespace
}  // namespace tgc
