// specialize's rules: each rewrites what its comment says (structure: the op names in
// toposort order, the Gemm/Gemv inputs), agrees with the graph as built on random inputs,
// and leaves alone what it must not touch (integer products, shared dots, mixed dtypes,
// vector lengths that may broadcast).
#include "compiler/passes/specialize.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "canon_test_util.h"
#include "ops/blas/gemm.h"
#include "ops/core/apply.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using test::expect_same_results;
using test::op_names;

constexpr DType f64 = DType::Float64;
constexpr DType f32 = DType::Float32;

test::PassRun spec(const std::vector<Var>& inputs, const std::vector<Var>& outputs, const PassContext& ctx = {}) {
  return test::run_pass(specialize, inputs, outputs, ctx);
}

// The value of a 0-d constant input of the node producing output o (alpha, beta).
double constant_input(const test::PassRun& r, int input, size_t o = 0) {
  const VarPtr& v = r.after.outputs()[o]->owner()->inputs()[input];
  EXPECT_EQ(v->kind(), Variable::Kind::Constant) << v->label();
  return v->kind() == Variable::Kind::Constant ? v->constant_value().at({}) : 0.0;
}
const Variable* input_of(const test::PassRun& r, int input, size_t o = 0) {
  return r.after.outputs()[o]->owner()->inputs()[input].get();
}

TEST(Specialize, DotPlusAddendBecomesGemmInEveryOrder) {
  Var x = matrix("x", f64), y = matrix("y", f64), c = matrix("c", f64);
  auto r = spec({x, y, c}, {dot(x, y) + c, c + dot(x, y), c - dot(x, y), dot(x, y) - c});
  EXPECT_TRUE(r.changed);
  EXPECT_THAT(op_names(r.after), ElementsAre("Gemm", "Gemm", "Gemm", "Gemm"));
  const double alphas[] = {1, 1, -1, 1}, betas[] = {1, 1, 1, -1};
  for (size_t o = 0; o < 4; ++o) {
    EXPECT_EQ(input_of(r, ScaledMatmul::kC, o), r.after.inputs()[2].get());
    EXPECT_EQ(constant_input(r, ScaledMatmul::kAlpha, o), alphas[o]) << "output " << o;
    EXPECT_EQ(constant_input(r, ScaledMatmul::kBeta, o), betas[o]) << "output " << o;
  }
  expect_same_results(r, 1e-12);
}

TEST(Specialize, ScalesFoldIntoAlphaAndBeta) {
  Var x = matrix("x", f64), y = matrix("y", f64), c = matrix("c", f64), a = scalar("a", f64);
  auto r = spec({x, y, c, a}, {dot(x, y) * 2 + c * 0.5, 3 * dot(x, y), -dot(x, y), a * dot(x, y) - c});
  EXPECT_THAT(op_names(r.after), ElementsAre("Gemm", "Gemm", "Gemm", "Gemm"));
  EXPECT_EQ(constant_input(r, ScaledMatmul::kAlpha, 0), 2);
  EXPECT_EQ(constant_input(r, ScaledMatmul::kBeta, 0), 0.5);
  EXPECT_EQ(input_of(r, ScaledMatmul::kC, 0), r.after.inputs()[2].get());  // c, not c * 0.5
  EXPECT_EQ(constant_input(r, ScaledMatmul::kAlpha, 1), 3);
  EXPECT_EQ(constant_input(r, ScaledMatmul::kBeta, 1), 0);  // no addend
  EXPECT_EQ(constant_input(r, ScaledMatmul::kAlpha, 2), -1);
  EXPECT_EQ(input_of(r, ScaledMatmul::kAlpha, 3), r.after.inputs()[3].get());  // a, a symbolic scale
  EXPECT_EQ(constant_input(r, ScaledMatmul::kBeta, 3), -1);
  expect_same_results(r, 1e-12);
}

TEST(Specialize, TransposesBecomeFlags) {
  Var x = matrix("x", f64), y = matrix("y", f64), c = matrix("c", f64);
  auto r = spec({x, y, c}, {dot(x, y.T()) + c, dot(x.T(), y.T()) * 2, -dot(x.T(), y)});
  EXPECT_THAT(op_names(r.after), ElementsAre("Gemm{transB}", "Gemm{transA,transB}", "Gemm{transA}"));
  EXPECT_EQ(input_of(r, ScaledMatmul::kA, 0), r.after.inputs()[0].get());
  EXPECT_EQ(input_of(r, ScaledMatmul::kB, 1), r.after.inputs()[1].get());
  EXPECT_EQ(input_of(r, ScaledMatmul::kA, 2), r.after.inputs()[0].get());
  expect_same_results(r, 1e-12);
}

TEST(Specialize, APlainTransposedProductStaysADot) {
  // Nothing to fold: a Gemm would carry a zero C, alpha 1 and beta 0 (three constants, each a
  // transfer on a GPU) for what Dot does through the transposed view's strides.
  Var x = matrix("x", f64), y = matrix("y", f64), m = matrix("m", f64), v = vector("v", f64);
  auto r = spec({x, y, m, v}, {dot(x.T(), y), dot(x, y.T()), dot(m.T(), v)});
  EXPECT_FALSE(r.changed);
  for (Node* n : r.after.toposort()) EXPECT_EQ(dynamic_cast<const ScaledMatmul*>(&n->op()), nullptr) << n->op().name();
}

TEST(Specialize, AGemmThatIsAPlainProductBecomesADot) {
  // Gemm(a, b, 0, 1, 0), as a rewrite could leave it (a scale folding to 1): before, a Gemm
  // per flag combination; expected, the Dot of the (transposed) operands.
  Var x = matrix("x", f64), y = matrix("y", f64), m = matrix("m", f64), v = vector("v", f64);
  Var zero = constant(0.0, f64), one = constant(1.0, f64);
  auto gemm = [&](std::shared_ptr<const Op> op, Var a, Var b) {
    return Var(apply1(std::move(op), {a.ptr(), b.ptr(), zero.ptr(), one.ptr(), zero.ptr()}));
  };
  std::vector<Var> outs = {gemm(std::make_shared<Gemm>(false, false), x, y),
                           gemm(std::make_shared<Gemm>(true, false), x, y),
                           gemm(std::make_shared<Gemm>(false, true), x, y),
                           gemm(std::make_shared<Gemm>(true, true), x.T(), y),
                           gemm(std::make_shared<Gemv>(false), m, v),
                           gemm(std::make_shared<Gemv>(true), m, v)};
  auto r = spec({x, y, m, v}, outs);
  std::vector<std::string> names = op_names(r.after);
  EXPECT_EQ(std::count(names.begin(), names.end(), "Dot"), 6) << ::testing::PrintToString(names);
  // Gemm{transA,transB}(x.T, y) is dot(x, y.T): the transposes of x cancel, no DimShuffle of x.
  EXPECT_EQ(std::count(names.begin(), names.end(), "DimShuffle{1,0}"), 3) << ::testing::PrintToString(names);
  for (Node* n : r.after.toposort()) EXPECT_EQ(dynamic_cast<const ScaledMatmul*>(&n->op()), nullptr) << n->op().name();
  // Gemv{transA}(m, v) is dot(v, m).
  const Node* last = r.after.outputs()[5]->owner();
  EXPECT_EQ(last->inputs()[0].get(), r.after.inputs()[3].get());
  EXPECT_EQ(last->inputs()[1].get(), r.after.inputs()[2].get());
  expect_same_results(r, 1e-12);
}

TEST(Specialize, AGemmWithBetaZeroStaysWhenItScalesOrItsCWidens) {
  // alpha 2 is a scaled product (BLAS scales for free); a C of shape (?, ?) may broadcast the
  // product at run time (C is not read, but it still shapes the result).
  Var x = matrix("x", f64), y = matrix("y", f64), c = matrix("c", f64);
  Var zero = constant(0.0, f64), one = constant(1.0, f64), two = constant(2.0, f64);
  Var scaled(apply1(std::make_shared<Gemm>(), {x.ptr(), y.ptr(), zero.ptr(), two.ptr(), zero.ptr()}));
  Var wide(apply1(std::make_shared<Gemm>(), {x.ptr(), y.ptr(), c.ptr(), one.ptr(), zero.ptr()}));
  auto r = spec({x, y, c}, {scaled, wide});
  EXPECT_FALSE(r.changed);
}

TEST(Specialize, TransposedOperandsOfAGemmBecomeFlags) {
  // A Gemm whose operands are transposes (as a rewrite after specialize's own could leave it).
  Var x = matrix("x", f64), y = matrix("y", f64), c = matrix("c", f64);
  Var one = constant(1.0, f64);
  Var g(apply1(std::make_shared<Gemm>(false, true), {x.T().ptr(), y.T().ptr(), c.ptr(), one.ptr(), one.ptr()}));
  auto r = spec({x, y, c}, {g});
  EXPECT_THAT(op_names(r.after), ElementsAre("Gemm{transA}"));
  EXPECT_EQ(input_of(r, ScaledMatmul::kA), r.after.inputs()[0].get());
  EXPECT_EQ(input_of(r, ScaledMatmul::kB), r.after.inputs()[1].get());
  expect_same_results(r, 1e-12);
}

TEST(Specialize, MatrixVectorProductsBecomeGemv) {
  Var m = matrix("m", f64), v = vector("v", f64), c = vector("c", f64);
  // dot(v, m) = m^T v: Gemv{transA} of m; dot(v, m.T) = m v: Gemv of m.
  auto r = spec({m, v, c}, {dot(m, v) + c, c - 2 * dot(v, m), dot(v, m.T()) + c, dot(m.T(), v) * 3});
  EXPECT_THAT(op_names(r.after), ElementsAre("Gemv", "Gemv{transA}", "Gemv", "Gemv{transA}"));
  EXPECT_EQ(constant_input(r, ScaledMatmul::kAlpha, 1), -2);
  for (size_t o = 0; o < 4; ++o) EXPECT_EQ(input_of(r, ScaledMatmul::kA, o), r.after.inputs()[0].get());
  expect_same_results(r, 1e-12);
}

TEST(Specialize, LogisticRegressionUpdateIsOneGemv) {
  // The tutorial's update of w: w - 0.01 * dot(x.T, g), float32 and w a shared variable.
  RandomState rng(1);
  Shared w = shared(rng.randn({4}).astype(f32), "w");
  Var x = matrix("x", f32), g = vector("g", f32);
  auto r = spec({x, g}, {w - 0.01 * dot(x.T(), g)});
  EXPECT_THAT(op_names(r.after), ElementsAre("Gemv{transA}"));
  EXPECT_EQ(input_of(r, ScaledMatmul::kA), r.after.inputs()[0].get());
  EXPECT_EQ(input_of(r, ScaledMatmul::kB), r.after.inputs()[1].get());
  EXPECT_EQ(input_of(r, ScaledMatmul::kC), w.ptr().get());
  EXPECT_FLOAT_EQ(constant_input(r, ScaledMatmul::kAlpha), -0.01);
  EXPECT_EQ(constant_input(r, ScaledMatmul::kBeta), 1);
  expect_same_results(r, 1e-6, 4);
}

TEST(Specialize, WeightDecayOfTheUpdatedVariableJoinsBeta) {
  // examples/logreg.tg's update: w - 0.01 * (dot(x.T, g) + 0.02 * w). The decay term is a
  // multiple of C (w itself), so it joins beta (1 - 0.0002) and C stays w: one Gemv, no
  // elementwise node computing w + beta * w first. Likewise in a Gemm, added on either side.
  RandomState rng(1);
  Shared w = shared(rng.randn({4}).astype(f32), "w");
  Var x = matrix("x", f32), g = vector("g", f32);
  auto r = spec({x, g}, {w - 0.01 * (dot(x.T(), g) + 0.02 * w)});
  EXPECT_THAT(op_names(r.after), ElementsAre("Gemv{transA}"));
  EXPECT_EQ(input_of(r, ScaledMatmul::kC), w.ptr().get());
  EXPECT_FLOAT_EQ(constant_input(r, ScaledMatmul::kAlpha), -0.01);
  EXPECT_FLOAT_EQ(constant_input(r, ScaledMatmul::kBeta), 1 - 0.0002);
  expect_same_results(r, 1e-6, 4);

  Var a = matrix("a", f64), b = matrix("b", f64), c = matrix("c", f64);
  auto m = spec({a, b, c}, {(dot(a, b) + 3 * c) + c * 0.5, c - (dot(a, b) + c * 2)});
  EXPECT_THAT(op_names(m.after), ElementsAre("Gemm", "Gemm"));
  EXPECT_EQ(input_of(m, ScaledMatmul::kC, 0), m.after.inputs()[2].get());
  EXPECT_EQ(constant_input(m, ScaledMatmul::kBeta, 0), 3.5);
  EXPECT_EQ(input_of(m, ScaledMatmul::kC, 1), m.after.inputs()[2].get());
  EXPECT_EQ(constant_input(m, ScaledMatmul::kAlpha, 1), -1);
  EXPECT_EQ(constant_input(m, ScaledMatmul::kBeta, 1), -1);
  expect_same_results(m, 1e-12);
}

TEST(Specialize, AGemmWithAnAddendAbsorbsFurtherTerms) {
  // (dot + c) * 2 - d: the addend becomes d's combination with c, the product stays one Gemm.
  Var x = matrix("x", f64), y = matrix("y", f64), c = matrix("c", f64), d = matrix("d", f64);
  auto r = spec({x, y, c, d}, {d - (dot(x, y) + c) * 2});
  ASSERT_EQ(r.after.outputs()[0]->owner()->op().name(), "Gemm");
  EXPECT_EQ(constant_input(r, ScaledMatmul::kAlpha), -2);
  EXPECT_EQ(constant_input(r, ScaledMatmul::kBeta), 1);
  std::vector<std::string> names = op_names(r.after);
  EXPECT_EQ(std::count(names.begin(), names.end(), "Gemm"), 1);
  expect_same_results(r, 1e-12);
}

TEST(Specialize, BiasRowBroadcastsIntoTheGemm) {
  Var x = matrix("x", f64), W = matrix("W", f64), b = vector("b", f64);
  auto r = spec({x, W, b}, {dot(x, W) + b});
  EXPECT_THAT(op_names(r.after), ElementsAre("Gemm"));
  EXPECT_EQ(input_of(r, ScaledMatmul::kC), r.after.inputs()[2].get());
  expect_same_results(r, 1e-12);
  expect_same_results(r, 1e-12, 1);  // every dim 1: the bias and the product broadcast alike
}

TEST(Specialize, LeavesAloneWhatItMustNot) {
  Var xi = matrix("xi", DType::Int32), ci = matrix("ci", DType::Int32);
  Var x = matrix("x", f64), y = matrix("y", f64), c = matrix("c", f64);
  Var x32 = matrix("x32", f32), c64 = matrix("c64", f64);
  Var u = vector("u", f64), v = vector("v", f64), s = scalar("s", f64);
  Var shared_dot = dot(x, y);
  auto r = spec({xi, ci, x, y, c, x32, c64, u, v, s},
                {dot(xi, xi) + ci,                // integers: no BLAS
                 shared_dot + c, shared_dot * 2,  // the product has two readers
                 dot(x32, x32) + c64,             // float32 product, float64 sum
                 dot(u, v) + s,                   // vector . vector is already BLAS's dot
                 dot(u, x) + c});                 // the addend has more dims than the product
  EXPECT_FALSE(r.changed);
  expect_same_results(r, 1e-12);
}

TEST(Specialize, SumOfProductOfVectorsBecomesDot) {
  Var x = tensor("x", f64, {5}), y = tensor("y", f64, {5});
  Var a = vector("a", f64), b = vector("b", f64), i = tensor("i", DType::Int32, {5});
  auto r = spec({x, y, a, b, i}, {sum(x * y), sum(a * a), sum(a * b), sum(i * i)});
  // Only the first two: a and b may differ in length (one of them 1, broadcast), and integers
  // have no BLAS dot.
  EXPECT_THAT(op_names(r.after), ElementsAre("Dot", "Dot", "Elemwise{mul}", "Sum", "Elemwise{mul}", "Sum"));
  expect_same_results(r, 1e-12);
}

TEST(Specialize, SumOfProductOfVectorsOfProvablyEqualLengthBecomesDot) {
  Var a = vector("a", f64), b = vector("b", f64);
  // exp(a) and a + 1 are both a's length (shape equivalence), whatever it is at run time.
  auto r = spec({a, b}, {sum(exp(a) * (a + 1.0)), sum(exp(a) * b)});
  std::vector<std::string> names = op_names(r.after);
  EXPECT_EQ(std::count(names.begin(), names.end(), "Dot"), 1) << r.after.str();
  EXPECT_EQ(std::count(names.begin(), names.end(), "Sum"), 1) << r.after.str();
  expect_same_results(r, 1e-12);
  expect_same_results(r, 1e-12, 1);
}

TEST(Specialize, FillBecomesAnElementwiseWhere) {
  Var m = matrix("m", f64), v = vector("v", f64), i = matrix("i", DType::Int32);
  auto r = spec({m, v, i}, {fill(m, v), fill(i, v)});
  for (const std::string& name : op_names(r.after)) EXPECT_NE(name, "Fill") << r.after.str();
  // Exactly: where only selects v (an int like is cast first, to keep v's dtype).
  expect_same_results(r, 0);
  expect_same_results(r, 0, 1);
}

TEST(Specialize, SumOfAProductReadElsewhereStays) {
  Var x = tensor("x", f64, {5}), y = tensor("y", f64, {5});
  Var p = x * y;
  auto r = spec({x, y}, {sum(p), p});
  EXPECT_FALSE(r.changed);
}

TEST(Specialize, RulesCanBeExcludedOneByOne) {
  Var x = matrix("x", f64), y = matrix("y", f64), c = matrix("c", f64);
  PassContext ctx;
  ctx.excluded = {"scaled_dot"};
  auto r = spec({x, y, c}, {dot(x.T(), y) * 2, dot(x, y) + c}, ctx);
  EXPECT_THAT(op_names(r.after), ElementsAre("DimShuffle{1,0}", "Dot", "Elemwise{mul}", "Gemm"));
}

TEST(Specialize, RunsInTheFastRunPipelineOfFunctions) {
  Var x = matrix("x", f32), y = vector("y", f32);
  RandomState rng(2);
  Shared w = shared(rng.randn({6}).astype(f32), "w");
  Var update = w - 0.1f * dot(x.T(), y);
  Function fast = function({x, y}, {update});
  Function none = function({x, y}, {update}, {}, {.config = {{"optimizer", "none"}}});
  Function excluded = function({x, y}, {update}, {}, {.config = {{"optimizer_excluding", "specialize"}}});
  auto has_gemv = [](const Function& f) {
    for (const std::string& s : f.toposort())
      if (s.rfind("Gemv", 0) == 0) return true;
    return false;
  };
  EXPECT_TRUE(has_gemv(fast));
  EXPECT_FALSE(has_gemv(excluded));
  Tensor xs = rng.randn({3, 6}).astype(f32), ys = rng.randn({3}).astype(f32);
  test::expect_close(fast(xs, ys)[0], none(xs, ys)[0], 1e-5, 1e-6);
}

}  // namespace
}  // namespace tgc
