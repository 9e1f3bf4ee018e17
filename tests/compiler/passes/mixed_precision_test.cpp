// mixed_precision: under mixed_precision=bfloat16|float16 every float32 product multiplies
// half casts of its operands and is read back as float32, gradients' products included;
// parameters, updates and results stay float32; training follows the float32 run within the
// half type's precision. Off by default.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "canon_test_util.h"
#include "support/one_hot.h"

namespace tgc {
namespace {

FunctionOptions mixed(const std::string& half) {
  return FunctionOptions{.config = {{"mixed_precision", half}}};
}

// The dtypes the products of a compiled function read.
std::vector<std::string> product_operand_dtypes(const Function& f) {
  std::vector<std::string> out;
  for (Node* n : f.graph().toposort()) {
    const std::string cls = n->op().op_class();
    if (cls != "Dot" && cls != "Gemm" && cls != "Gemv" && cls != "BatchedDot") continue;
    out.emplace_back(dtype_name(n->inputs()[0]->type().dtype));
  }
  return out;
}

TEST(MixedPrecision, ProductsReadHalfCopiesAndGiveFloat32) {
  Var x = matrix("x"), w = matrix("w");
  Var y = dot(x, w);
  for (const char* half : {"bfloat16", "float16"}) {
    SCOPED_TRACE(half);
    Function f = function({x, w}, {y}, {}, mixed(half));
    EXPECT_THAT(product_operand_dtypes(f), ::testing::Each(std::string(half)));
    EXPECT_FALSE(product_operand_dtypes(f).empty());
    RandomState rng(1);
    Tensor a = rng.uniform(-1, 1, {8, 64}).astype(DType::Float32), b = rng.uniform(-1, 1, {64, 5}).astype(DType::Float32);
    Tensor got = f({a, b})[0];
    EXPECT_EQ(got.dtype(), DType::Float32);
    // The exact product of the operands rounded to the half type, each term exact in float32.
    Tensor want = function({x, w}, {dot(cast(cast(x, parse_dtype(half)), DType::Float32),
                                        cast(cast(w, parse_dtype(half)), DType::Float32))})({a, b})[0];
    const double eps = std::string(half) == "float16" ? 0x1p-10 : 0x1p-7;
    EXPECT_TRUE(tensors_allclose(got, want, eps, eps)) << got.str() << "\n" << want.str();
  }
}

TEST(MixedPrecision, OffByDefaultAndLeavesOtherDtypesAlone) {
  Var x = matrix("x"), w = matrix("w");
  EXPECT_THAT(product_operand_dtypes(function({x, w}, {dot(x, w)})), ::testing::Each(std::string("float32")));
  Var xd = matrix("xd", DType::Float64), wd = matrix("wd", DType::Float64);
  EXPECT_THAT(product_operand_dtypes(function({xd, wd}, {dot(xd, wd)}, {}, mixed("bfloat16"))),
              ::testing::Each(std::string("float64")));
}

// A small MLP trained `steps` steps of SGD: float32 parameters and updates either way.
std::vector<double> train(const std::string& half, int steps) {
  constexpr int64_t kIn = 20, kHidden = 32, kClasses = 4, kBatch = 16;
  RandomState rng(7);
  Shared w1 = shared(rng.normal(0, 0.3, {kIn, kHidden}).astype(DType::Float32), "w1");
  Shared b1 = shared(Tensor::zeros(DType::Float32, {kHidden}), "b1");
  Shared w2 = shared(rng.normal(0, 0.3, {kHidden, kClasses}).astype(DType::Float32), "w2");
  Var x = matrix("x"), t = matrix("t");
  Var h = maximum(dot(x, w1) + b1, 0.0);
  Var loss = -mean(sum(t * log_softmax(dot(h, w2)), 1));
  std::vector<Var> g = grad(loss, {w1, b1, w2});
  Function step = function({x, t}, {loss}, {{w1, w1 - 0.2 * g[0]}, {b1, b1 - 0.2 * g[1]}, {w2, w2 - 0.2 * g[2]}},
                           half.empty() ? FunctionOptions{} : mixed(half));
  EXPECT_EQ(w1.get_value().dtype(), DType::Float32);
  RandomState data(9);
  Tensor xs = data.randn({kBatch, kIn}).astype(DType::Float32);
  Tensor ts = test::one_hot(data.randint(0, kClasses, {kBatch}), kClasses).astype(DType::Float32);
  std::vector<double> losses;
  for (int i = 0; i < steps; ++i) losses.push_back(step({xs, ts})[0].item<double>());
  EXPECT_EQ(w1.get_value().dtype(), DType::Float32);
  return losses;
}

TEST(MixedPrecision, TrainingFollowsFloat32) {
  const std::vector<double> f32 = train("", 30);
  const std::vector<double> mp = train("bfloat16", 30);
  ASSERT_EQ(mp.size(), f32.size());
  EXPECT_LT(f32.back(), 0.7 * f32.front());  // it learns
  for (size_t i = 0; i < f32.size(); ++i) EXPECT_NEAR(mp[i], f32[i], 0.03 * f32[i]) << "step " << i;
}

// float16 with dynamic loss scaling: the first steps overflow at the initial scale 2^16 and
// are skipped (the scale halves each time), then training proceeds; after 300 steps the loss
// is float32's within 2%.
TEST(MixedPrecision, Float16WithLossScalingReachesFloat32sLoss) {
  const std::vector<double> f32 = train("", 300);
  const std::vector<double> f16 = train("float16", 300);
  EXPECT_LT(f32.back(), 0.3 * f32.front());
  EXPECT_NEAR(f16.back(), f32.back(), 0.02 * f32.back());
}

// The shared variable of a function's graph called `name` (the loss scale's state).
Tensor shared_value_named(const Function& f, const std::string& name) {
  for (const Variable* root : f.graph().roots())
    if (root->kind() == Variable::Kind::Shared && root->storage()->name() == name) return root->storage()->get_value();
  ADD_FAILURE() << "no shared variable " << name;
  return {};
}

TEST(MixedPrecision, AStepWithAnInfGradientChangesNothingAndHalvesTheScale) {
  // d sum(x w) / d w = x^T 1: with every x 1 and 64 rows, 64 * S, which float16 holds only
  // once S <= 1023 (65504 / 64): the first 7 steps (S = 2^16 ... 2^10) are skipped.
  Var x = matrix("x");
  Shared w = shared(Tensor::full(DType::Float32, {4, 3}, 0.5), "w");
  Var loss = sum(dot(x, w));
  Var g = grad(loss, w);
  Function step = function({x}, {loss}, {{w, w - 1e-3 * g}}, mixed("float16"));
  const Tensor ones = Tensor::full(DType::Float32, {64, 4}, 1.0);
  EXPECT_EQ(shared_value_named(step, "loss_scale").item<double>(), 65536.0);
  for (int i = 0; i < 7; ++i) {
    step({ones});
    EXPECT_TRUE(tensors_equal(w.get_value(), Tensor::full(DType::Float32, {4, 3}, 0.5))) << "step " << i;
    EXPECT_EQ(shared_value_named(step, "loss_scale").item<double>(), 32768.0 / (1 << i));
  }
  step({ones});
  EXPECT_EQ(shared_value_named(step, "loss_scale").item<double>(), 512.0);  // finite: kept
  EXPECT_EQ(shared_value_named(step, "loss_scale_finite_steps").item<int64_t>(), 1);
  // w - 1e-3 * 64, the true gradient (unscaled), exact in float16 products.
  EXPECT_TRUE(tensors_allclose(w.get_value(), Tensor::full(DType::Float32, {4, 3}, 0.5 - 0.064), 1e-6, 1e-6))
      << w.get_value().str();
  // After 2000 finite steps in a row the scale doubles (and the next step, 1024 * 64 = 65536,
  // would overflow float16 again).
  for (int i = 1; i < 2000; ++i) step({ones});
  EXPECT_EQ(shared_value_named(step, "loss_scale").item<double>(), 1024.0);
  EXPECT_EQ(shared_value_named(step, "loss_scale_finite_steps").item<int64_t>(), 0);
}

TEST(MixedPrecision, Bfloat16HasNoLossScale) {
  Var x = matrix("x");
  Shared w = shared(Tensor::full(DType::Float32, {4, 3}, 0.5), "w");
  Var g = grad(sum(dot(x, w)), w);
  Function step = function({x}, {}, {{w, w - 1e-3 * g}}, mixed("bfloat16"));
  for (const Variable* root : step.graph().roots())
    EXPECT_FALSE(root->kind() == Variable::Kind::Shared && root->storage()->name() == "loss_scale");
}

}  // namespace
}  // namespace tgc
