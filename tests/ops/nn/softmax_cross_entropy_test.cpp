// SoftmaxCrossEntropy: its perform against the cross-entropy rows and gradient computed by hand
// in double (both forms: g given, g = t * s), along each axis; its type and shape rules.
#include "ops/nn/softmax_cross_entropy.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ops/core/apply.h"
#include "runtime/error.h"
#include "runtime/random.h"

namespace tgc {
namespace {

Tensor randn(const Shape& shape, int64_t seed) { return RandomState(seed).randn(shape); }

// r = sum(t * log_softmax(z)) and d = g - softmax(z) * sum(g), rows along `axis` of matrices.
std::pair<Tensor, Tensor> by_hand(int axis, const Tensor& z, const Tensor& t, const Tensor& g) {
  const int64_t rows = z.shape()[0], cols = z.shape()[1];
  const int64_t nrows = axis == 1 ? rows : cols, len = axis == 1 ? cols : rows;
  auto at = [&](const Tensor& x, int64_t row, int64_t k) {
    return axis == 1 ? x.at({row, k}) : x.at({k, row});
  };
  std::vector<double> r(static_cast<size_t>(nrows)), d(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < nrows; ++i) {
    double m = -INFINITY, s = 0, sg = 0;
    for (int64_t k = 0; k < len; ++k) m = std::max(m, at(z, i, k));
    for (int64_t k = 0; k < len; ++k) s += std::exp(at(z, i, k) - m), sg += at(g, i, k);
    for (int64_t k = 0; k < len; ++k) {
      const double y = at(z, i, k) - m - std::log(s);
      r[static_cast<size_t>(i)] += at(t, i, k) * y;
      const int64_t flat = axis == 1 ? i * cols + k : k * cols + i;
      d[static_cast<size_t>(flat)] = at(g, i, k) - std::exp(y) * sg;
    }
  }
  return {Tensor::from_vector(r, {nrows}), Tensor::from_vector(d, {rows, cols})};
}

TEST(SoftmaxCrossEntropy, BothFormsAlongEachAxisMatchTheFormula) {
  const Tensor z = randn({5, 7}, 1), t = RandomState(2).rand({5, 7}), g = randn({5, 7}, 3);
  for (int axis : {0, 1}) {
    SCOPED_TRACE(axis);
    std::vector<Tensor> out(2);
    SoftmaxCrossEntropy(axis, std::nullopt).perform({z, t, g}, out);
    auto [r, d] = by_hand(axis, z, t, g);
    EXPECT_TRUE(tensors_allclose(out[0], r, 1e-12, 1e-12)) << out[0].str() << "\n" << r.str();
    EXPECT_TRUE(tensors_allclose(out[1], d, 1e-12, 1e-12));
    // With a scale: g is t * -0.25.
    SoftmaxCrossEntropy(axis, -0.25).perform({z, t}, out);
    std::vector<double> tv = t.to_vector<double>();
    for (double& v : tv) v *= -0.25;
    const Tensor gs = Tensor::from_vector(tv, t.shape());
    auto [r2, d2] = by_hand(axis, z, t, gs);
    EXPECT_TRUE(tensors_allclose(out[0], r2, 1e-12, 1e-12));
    EXPECT_TRUE(tensors_allclose(out[1], d2, 1e-12, 1e-12));
  }
}

TEST(SoftmaxCrossEntropy, TypesAndShapes) {
  const VarPtr z = Variable::input(Type(DType::Float32, {4, 6}), "z");
  const VarPtr t = Variable::input(Type(DType::Float32, {4, 6}), "t");
  const std::vector<VarPtr> outs = tgc::apply(std::make_shared<SoftmaxCrossEntropy>(1, -0.25), {z, t});
  EXPECT_EQ(outs[0]->type(), Type(DType::Float32, {4}));
  EXPECT_EQ(outs[1]->type(), Type(DType::Float32, {4, 6}));
  EXPECT_EQ(SoftmaxCrossEntropy(1, -0.25).name(), "SoftmaxCrossEntropy{axis=1, scale=-0.25}");
  EXPECT_EQ(SoftmaxCrossEntropy(0, std::nullopt).name(), "SoftmaxCrossEntropy{axis=0}");
  // A target of another dtype, a g of another rank: errors naming the op.
  const VarPtr t64 = Variable::input(Type(DType::Float64, {4, 6}), "t64");
  EXPECT_THROW(tgc::apply(std::make_shared<SoftmaxCrossEntropy>(1, std::nullopt), {z, t64, t}), TypeError);
  const VarPtr v = Variable::input(Type(DType::Float32, {4}), "v");
  EXPECT_THROW(tgc::apply(std::make_shared<SoftmaxCrossEntropy>(1, std::nullopt), {z, t, v}), TypeError);
  std::vector<Tensor> out(2);
  EXPECT_THROW(SoftmaxCrossEntropy(1, std::nullopt)
                   .perform({Tensor::zeros(DType::Float32, {4, 6}), Tensor::zeros(DType::Float32, {3, 5}),
                             Tensor::zeros(DType::Float32, {4, 6})},
                            out),
               ShapeError);
}

}  // namespace
}  // namespace tgc
