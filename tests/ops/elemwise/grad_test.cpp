// Gradients of the elementwise ops (the scalar-op table's derivative rules and
// Elemwise::grad): every differentiable row checked numerically with verify_grad, also
// through broadcasting; the piecewise-constant rows' zeros; integer, bool and cast cases;
// and exact values at the points where a convention decides (kinks, ties, bounds, 0^y).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <tgc/grad.h>
#include <tgc/math.h>
#include <tgc/reductions.h>

#include <cmath>
#include <random>
#include <set>

#include "ops/core/apply.h"
#include "ops/core/node.h"
#include "ops/elemwise/elemwise.h"
#include "runtime/error.h"
#include "support/graph_eval.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using K = ScalarOpKind;

// ---- Inputs.

std::mt19937_64& rng() {
  static std::mt19937_64 engine(20261121);
  return engine;
}

// Uniform in [lo, hi).
Tensor uniform(const Shape& shape, double lo, double hi) {
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(static_cast<size_t>(shape_numel(shape)));
  for (double& x : v) x = dist(rng());
  return Tensor::from_vector(v, shape);
}

// Magnitude uniform in [lo, hi), random sign: keeps clear of 0.
Tensor away_from_zero(const Shape& shape, double lo, double hi) {
  Tensor t = uniform(shape, lo, hi);
  std::bernoulli_distribution flip(0.5);
  double* p = t.data<double>();
  for (int64_t i = 0; i < t.numel(); ++i)
    if (flip(rng())) p[i] = -p[i];
  return t;
}

// Elemwise{kind} of the Vars (floatX float64, so nothing here depends on the config).
Var ew(K kind, const std::vector<Var>& inputs, std::optional<DType> cast_to = std::nullopt) {
  return Var(apply1(std::make_shared<Elemwise>(kind, cast_to, DType::Float64), to_ptrs(inputs)));
}

// verify_grad of Elemwise{kind} at `points` (the whole-row numeric check).
void check_row(K kind, const std::vector<Tensor>& points) {
  SCOPED_TRACE(std::string(scalar_op_name(kind)));
  verify_grad([kind](const std::vector<Var>& v) { return ew(kind, v); }, points);
}

// ---- Every differentiable row, numerically, on float64 (3, 4) operands in its domain.

struct UnaryCase {
  K kind;
  double lo, hi;
  bool both_signs;  // magnitudes in [lo, hi) with random signs
};

const std::vector<UnaryCase>& unary_cases() {
  static const std::vector<UnaryCase> cases = {
      {K::Neg, -2, 2, false},        {K::Abs, 0.2, 2, true},        {K::Exp, -2, 2, false},
      {K::Exp2, -2, 2, false},       {K::Expm1, -2, 2, false},      {K::Log, 0.2, 3, false},
      {K::Log2, 0.2, 3, false},      {K::Log10, 0.2, 3, false},     {K::Log1p, -0.7, 3, false},
      {K::Sqrt, 0.2, 3, false},      {K::Rsqrt, 0.2, 3, false},     {K::Square, -2, 2, false},
      {K::Sin, -3, 3, false},        {K::Cos, -3, 3, false},        {K::Tan, -1.2, 1.2, false},
      {K::Tanh, -2, 2, false},       {K::Sinh, -2, 2, false},       {K::Cosh, -2, 2, false},
      {K::Arcsin, -0.9, 0.9, false}, {K::Arccos, -0.9, 0.9, false}, {K::Arctan, -3, 3, false},
      {K::Erf, -2, 2, false},        {K::Erfc, -2, 2, false},       {K::Sigmoid, -4, 4, false},
      {K::Softplus, -4, 4, false},
  };
  return cases;
}

Tensor unary_point(const UnaryCase& c, const Shape& shape) {
  return c.both_signs ? away_from_zero(shape, c.lo, c.hi) : uniform(shape, c.lo, c.hi);
}

TEST(ElemwiseGrad, UnaryRowsMatchCentralDifferences) {
  for (const UnaryCase& c : unary_cases()) check_row(c.kind, {unary_point(c, {3, 4})});
}

TEST(ElemwiseGrad, UnaryRowsOnZeroDimAndEmptyOperands) {
  for (const UnaryCase& c : unary_cases()) {
    check_row(c.kind, {unary_point(c, {})});
    check_row(c.kind, {unary_point(c, {0, 3})});
  }
}

// Binary rows: operands of two shapes, each in the row's domain.
struct BinaryCase {
  K kind;
  std::function<Tensor(const Shape&)> a, b;
};

const std::vector<BinaryCase>& binary_cases() {
  auto u = [](double lo, double hi) { return [=](const Shape& s) { return uniform(s, lo, hi); }; };
  auto nz = [](double lo, double hi) {
    return [=](const Shape& s) { return away_from_zero(s, lo, hi); };
  };
  static const std::vector<BinaryCase> cases = {
      {K::Add, u(-2, 2), u(-2, 2)},
      {K::Sub, u(-2, 2), u(-2, 2)},
      {K::Mul, u(-2, 2), u(-2, 2)},
      {K::TrueDiv, u(-2, 2), nz(0.5, 2)},
      // Jumps of floor(a / b) are where a / b is an integer: measure zero, and none lies
      // within the differencing step of these seeded points.
      {K::Mod, u(-3, 3), nz(0.7, 2)},
      {K::Pow, u(0.3, 2), u(-2, 2)},
      {K::Arctan2, nz(0.3, 2), nz(0.3, 2)},
      {K::Maximum, u(-2, 2), u(-2, 2)},
      {K::Minimum, u(-2, 2), u(-2, 2)},
  };
  return cases;
}

TEST(ElemwiseGrad, BinaryRowsMatchCentralDifferences) {
  for (const BinaryCase& c : binary_cases()) check_row(c.kind, {c.a({3, 4}), c.b({3, 4})});
}

// The gradient of a broadcast operand is summed over the dims it was broadcast along:
// (3, 4) against (4,), (3, 1) and 0-d operands, on either side.
TEST(ElemwiseGrad, BinaryRowsThroughBroadcasting) {
  for (const BinaryCase& c : binary_cases()) {
    for (const Shape& small : {Shape{4}, Shape{3, 1}, Shape{}}) {
      SCOPED_TRACE("small operand " + shape_str(small));
      check_row(c.kind, {c.a({3, 4}), c.b(small)});
      check_row(c.kind, {c.a(small), c.b({3, 4})});
    }
    check_row(c.kind, {c.a({3, 1}), c.b({1, 4})});  // both broadcast
  }
}

TEST(ElemwiseGrad, ClipAllThreeOperands) {
  // x crosses both bounds; lo (4,) and hi (3, 1) broadcast.
  check_row(K::Clip, {uniform({3, 4}, -2, 2), uniform({4}, -1.5, -0.5), uniform({3, 1}, 0.5, 1.5)});
  check_row(K::Clip, {uniform({3, 4}, -2, 2), uniform({}, -1.5, -0.5), uniform({}, 0.5, 1.5)});
  // lo > hi: the result is hi everywhere, so hi takes the whole gradient.
  check_row(K::Clip, {uniform({3, 4}, -2, 2), uniform({}, 0.5, 1), uniform({}, -1, -0.5)});
}

TEST(ElemwiseGrad, WhereToTheSelectedBranch) {
  Var cond = constant(Tensor::from_vector(std::vector<double>{1, 0, 0, 1}).astype(DType::Bool));
  auto fn = [&](const std::vector<Var>& v) { return ew(K::Where, {cond, v[0], v[1]}); };
  verify_grad(fn, {uniform({3, 4}, -2, 2), uniform({3, 4}, -2, 2)});
  verify_grad(fn, {uniform({3, 1}, -2, 2), uniform({}, -2, 2)});
}

TEST(ElemwiseGrad, CastBetweenFloatsIsTheIdentityGradient) {
  verify_grad([](const std::vector<Var>& v) { return ew(K::Cast, {v[0]}, DType::Float64); },
              {uniform({3, 4}, -2, 2)});
}

// float32 graphs stay float32: every rule builds its constants in its operands' dtype, so
// no float64 node enters the gradient graph (warn_float64 would report one); the values
// agree with the float64 gradient to float32 precision.
bool has_float64(const VarPtr& v, std::set<const Variable*>& seen) {
  if (!seen.insert(v.get()).second) return false;
  if (v->type().dtype == DType::Float64) return true;
  if (Node* n = v->owner())
    for (const VarPtr& in : n->inputs())
      if (has_float64(in, seen)) return true;
  return false;
}

void check_float32_grad(K kind, const std::vector<Tensor>& points) {
  SCOPED_TRACE(std::string(scalar_op_name(kind)));
  std::vector<Var> x32, x64;
  std::vector<std::pair<Var, Tensor>> givens32, givens64;
  for (size_t i = 0; i < points.size(); ++i) {
    std::vector<int64_t> shape(points[i].ndim(), kUnknownDim);
    x32.push_back(tensor("a" + std::to_string(i), DType::Float32, shape));
    x64.push_back(tensor("b" + std::to_string(i), DType::Float64, shape));
    Tensor p32 = points[i].astype(DType::Float32);
    givens32.emplace_back(x32.back(), p32);
    givens64.emplace_back(x64.back(), p32.astype(DType::Float64));
  }
  std::vector<Var> g32 = grad(sum(ew(kind, x32)), x32), g64 = grad(sum(ew(kind, x64)), x64);
  test::GraphEval eval32(givens32), eval64(givens64);
  for (size_t i = 0; i < g32.size(); ++i) {
    std::set<const Variable*> seen;
    EXPECT_EQ(g32[i].dtype(), DType::Float32);
    EXPECT_FALSE(has_float64(g32[i].ptr(), seen))
        << "a float64 node in the gradient of input " << i;
    EXPECT_TRUE(
        tensors_allclose(eval32(g32[i]).astype(DType::Float64), eval64(g64[i]), 1e-4, 1e-5));
  }
}

TEST(ElemwiseGrad, Float32GraphsStayFloat32) {
  for (const UnaryCase& c : unary_cases()) check_float32_grad(c.kind, {unary_point(c, {3, 4})});
  for (const BinaryCase& c : binary_cases()) check_float32_grad(c.kind, {c.a({3, 4}), c.b({4})});
  check_float32_grad(K::Clip,
                     {uniform({3, 4}, -2, 2), uniform({}, -1.5, -0.5), uniform({}, 0.5, 1.5)});
}

// A table-level promise: every row is either checked numerically above or is one of the
// documented piecewise-constant rows (grad == null, zero gradient).
TEST(ElemwiseGrad, EveryRowHasARuleOrIsPiecewiseConstant) {
  const std::set<K> piecewise_constant = {
      K::FloorDiv, K::Sign, K::Lt,         K::Le,        K::Gt,         K::Ge,
      K::Eq,       K::Neq,  K::LogicalAnd, K::LogicalOr, K::LogicalXor, K::LogicalNot,
      K::Floor,    K::Ceil, K::Round,      K::Trunc,     K::IsNan,      K::IsInf};
  std::set<K> checked = {K::Clip, K::Where, K::Cast};
  for (const UnaryCase& c : unary_cases()) checked.insert(c.kind);
  for (const BinaryCase& c : binary_cases()) checked.insert(c.kind);
  for (const ScalarOpInfo& row : scalar_op_table()) {
    SCOPED_TRACE(std::string(row.name));
    EXPECT_EQ(row.grad == nullptr, piecewise_constant.count(row.kind) == 1);
    EXPECT_EQ(checked.count(row.kind) + piecewise_constant.count(row.kind), 1u);
  }
}

// ---- Elemwise::grad on one node: zeros, nulls and dtypes.

// op.grad(node, {g}) for the node computing `out`.
std::vector<VarPtr> node_grad(const Var& out, const VarPtr& g) {
  const Node& node = *out.ptr()->owner();
  return node.op().grad(node, {g});
}

VarPtr ones_f64(const Shape& shape) {
  return constant(Tensor::full(DType::Float64, shape, 1)).ptr();
}

TEST(ElemwiseGrad, PiecewiseConstantRowsGiveZerosForFloatInputs) {
  Var x = matrix("x", DType::Float64), y = matrix("y", DType::Float64);
  Tensor xv = uniform({2, 3}, -2, 2), yv = uniform({2, 3}, -2, 2);
  for (const ScalarOpInfo& row : scalar_op_table()) {
    if (row.grad != nullptr) continue;
    SCOPED_TRACE(std::string(row.name));
    std::vector<Var> in = {x, y};
    in.resize(static_cast<size_t>(row.arity));
    std::vector<VarPtr> g = node_grad(ew(row.kind, in), ones_f64({2, 3}));
    ASSERT_EQ(g.size(), in.size());
    test::GraphEval eval({{x, xv}, {y, yv}});
    for (const VarPtr& gi : g) {
      ASSERT_NE(gi, nullptr);
      EXPECT_EQ(gi->type().dtype, DType::Float64);
      EXPECT_TRUE(tensors_equal(eval(Var(gi)), Tensor::zeros(DType::Float64, {2, 3})));
    }
  }
}

TEST(ElemwiseGrad, IntegerAndBoolInputsHaveNoGradient) {
  Var x = vector("x", DType::Float64), i = vector("i", DType::Int32), b = vector("b", DType::Bool);
  std::vector<VarPtr> g = node_grad(ew(K::Add, {x, i}), ones_f64({3}));
  EXPECT_NE(g[0], nullptr);
  EXPECT_EQ(g[1], nullptr);
  g = node_grad(ew(K::Mul, {i, i}), ones_f64({3}));  // int32 output: nothing differentiable
  EXPECT_EQ(g[0], nullptr);
  EXPECT_EQ(g[1], nullptr);
  g = node_grad(ew(K::Exp, {i}), ones_f64({3}));  // exp(int32) is a float, its input is not
  EXPECT_EQ(g[0], nullptr);
  g = node_grad(ew(K::Where, {b, x, i}), ones_f64({3}));
  EXPECT_EQ(g[0], nullptr);
  EXPECT_NE(g[1], nullptr);
  EXPECT_EQ(g[2], nullptr);
  g = node_grad(ew(K::Floor, {i}), ones_f64({3}));
  EXPECT_EQ(g[0], nullptr);
  g = node_grad(ew(K::Cast, {i}, DType::Float64), ones_f64({3}));
  EXPECT_EQ(g[0], nullptr);
}

TEST(ElemwiseGrad, NullOutputGradientGivesNulls) {
  Var x = vector("x", DType::Float64);
  for (K kind : {K::Exp, K::Floor}) {
    std::vector<VarPtr> g = node_grad(ew(kind, {x}), nullptr);
    ASSERT_EQ(g.size(), 1u);
    EXPECT_EQ(g[0], nullptr);
  }
}

TEST(ElemwiseGrad, CastGradientComesBackInTheInputDtype) {
  Var x = vector("x", DType::Float64);
  Tensor xv = Tensor::from_vector(std::vector<double>{1.5, -2.25, 3});
  Tensor gv = Tensor::from_vector(std::vector<float>{0.5f, 2, -1});
  test::GraphEval eval({{x, xv}});
  // float64 -> float32: the float32 gradient converted back to float64.
  std::vector<VarPtr> g = node_grad(ew(K::Cast, {x}, DType::Float32), constant(gv).ptr());
  ASSERT_NE(g[0], nullptr);
  EXPECT_EQ(g[0]->type().dtype, DType::Float64);
  EXPECT_TRUE(tensors_equal(eval(Var(g[0])), gv.astype(DType::Float64)));
  // float64 -> int32 is piecewise constant: zeros, as Theano.
  g = node_grad(ew(K::Cast, {x}, DType::Int32), ones_f64({3}));
  ASSERT_NE(g[0], nullptr);
  EXPECT_EQ(g[0]->type().dtype, DType::Float64);
  EXPECT_TRUE(tensors_equal(eval(Var(g[0])), Tensor::zeros(DType::Float64, {3})));
}

// ---- Exact values through grad(), where a convention decides.

// d cost / d each of `wrt`, evaluated at `givens`.
std::vector<Tensor> grad_values(const Var& cost, const std::vector<Var>& wrt,
                                std::vector<std::pair<Var, Tensor>> givens) {
  std::vector<Var> g = grad(cost, wrt);
  test::GraphEval eval(std::move(givens));
  std::vector<Tensor> out;
  for (const Var& gi : g) out.push_back(eval(gi));
  return out;
}

Tensor f64s(std::vector<double> v, Shape s) { return Tensor::from_vector(v, s); }

TEST(ElemwiseGrad, SquareOfXAtThreeIsSix) {
  Var x = scalar("x", DType::Float64);
  std::vector<Tensor> g = grad_values(x * x, {x}, {{x, Tensor::scalar(3.0)}});
  EXPECT_EQ(g[0].item<double>(), 6.0);
  g = grad_values(exp(x) * sin(x), {x}, {{x, Tensor::scalar(0.5)}});
  EXPECT_NEAR(g[0].item<double>(), std::exp(0.5) * (std::sin(0.5) + std::cos(0.5)), 1e-14);
}

TEST(ElemwiseGrad, BroadcastOperandsGetSummedGradients) {
  Var x = tensor("x", DType::Float64, {3, 1}), y = tensor("y", DType::Float64, {1, 4});
  Var z = vector("z", DType::Float32);  // mixed dtypes: the gradient keeps z's float32
  Tensor xv = f64s({1, 2, 3}, {3, 1}), yv = f64s({1, 10, 100, 1000}, {1, 4});
  Tensor zv = Tensor::from_vector(std::vector<float>{1, 1, 1, 1});
  std::vector<Tensor> g = grad_values(sum(x * y + z), {x, y, z}, {{x, xv}, {y, yv}, {z, zv}});
  EXPECT_TRUE(tensors_equal(g[0], f64s({1111, 1111, 1111}, {3, 1})));
  EXPECT_TRUE(tensors_equal(g[1], f64s({6, 6, 6, 6}, {1, 4})));
  EXPECT_TRUE(tensors_equal(g[2], Tensor::full(DType::Float32, {4}, 3)));
}

TEST(ElemwiseGrad, ConventionsAtKinksTiesAndBounds) {
  Var x = vector("x", DType::Float64), y = vector("y", DType::Float64);
  // abs: 0 at 0 (sign(0)).
  std::vector<Tensor> g = grad_values(sum(abs(x)), {x}, {{x, f64s({-2, 0, 3}, {3})}});
  EXPECT_TRUE(tensors_equal(g[0], f64s({-1, 0, 1}, {3})));
  // maximum/minimum ties go to the first operand.
  Tensor tie = f64s({1, 1, 2}, {3}), other = f64s({1, 2, 1}, {3});
  g = grad_values(sum(maximum(x, y)), {x, y}, {{x, tie}, {y, other}});
  EXPECT_TRUE(tensors_equal(g[0], f64s({1, 0, 1}, {3})));
  EXPECT_TRUE(tensors_equal(g[1], f64s({0, 1, 0}, {3})));
  g = grad_values(sum(minimum(x, y)), {x, y}, {{x, tie}, {y, other}});
  EXPECT_TRUE(tensors_equal(g[0], f64s({1, 1, 0}, {3})));
  EXPECT_TRUE(tensors_equal(g[1], f64s({0, 0, 1}, {3})));
  // clip passes the gradient to x on the closed interval [lo, hi], as Theano.
  Var lo = scalar("lo", DType::Float64), hi = scalar("hi", DType::Float64);
  g = grad_values(
      sum(clip(x, lo, hi)), {x, lo, hi},
      {{x, f64s({-1, 0, 1, 2, -3}, {5})}, {lo, Tensor::scalar(-1.0)}, {hi, Tensor::scalar(1.0)}});
  EXPECT_TRUE(tensors_equal(g[0], f64s({1, 1, 1, 0, 0}, {5})));
  EXPECT_EQ(g[1].item<double>(), 1.0);
  EXPECT_EQ(g[2].item<double>(), 1.0);
  // pow: d/dy of 0^y is 0 (not 0 * log 0 = nan); d/dx of x^2 at 0 is 0.
  g = grad_values(sum(pow(x, y)), {x, y}, {{x, f64s({0, 2}, {2})}, {y, f64s({2, 3}, {2})}});
  EXPECT_TRUE(tensors_equal(g[0], f64s({0, 12}, {2})));
  EXPECT_EQ(g[1].to_vector<double>()[0], 0.0);
  EXPECT_NEAR(g[1].to_vector<double>()[1], 8 * std::log(2.0), 1e-14);
  // mod: d/dy = -floor(x / y).
  g = grad_values(sum(x % y), {x, y}, {{x, f64s({7, -7}, {2})}, {y, f64s({2, 2}, {2})}});
  EXPECT_TRUE(tensors_equal(g[0], f64s({1, 1}, {2})));
  EXPECT_TRUE(tensors_equal(g[1], f64s({-3, 4}, {2})));
}

TEST(ElemwiseGrad, PiecewiseConstantPathsContributeZero) {
  // floor(x) * x: only the explicit x term has a gradient, so d/dx = floor(x).
  Var x = vector("x", DType::Float64);
  Tensor xv = f64s({-1.5, 0.25, 2.75}, {3});
  std::vector<Tensor> g = grad_values(sum(floor(x) * x), {x}, {{x, xv}});
  EXPECT_TRUE(tensors_equal(g[0], f64s({-2, 0, 2}, {3})));
  // where(x > 0, x, 0): the comparison adds nothing.
  g = grad_values(sum(where(x > 0, x * x, 0)), {x}, {{x, xv}});
  EXPECT_TRUE(tensors_equal(g[0], f64s({0, 0.5, 5.5}, {3})));
}

TEST(ElemwiseGrad, VerifyGradCatchesAWrongRule) {
  // The numeric check is not vacuous: floor's zero gradient disagrees with the central
  // differences across one of its jumps.
  try {
    check_row(K::Floor, {f64s({0.99999999999, 0.5}, {2})});
    FAIL() << "verify_grad accepted a zero gradient across a jump";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("disagrees with central differences at input 0 element (0,)"));
  }
}

}  // namespace
}  // namespace tgc
