// Gradient rules of the blas family, checked numerically with verify_grad (float64, random
// points): dot in its four forms with plain and transposed operands, batched_dot with 3-d,
// broadcast-batch, 2-d and 1-d operands, outer of vectors and of n-d operands; plus
// hand-computed values, dtypes, and null gradients for integer operands.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

#include <tgc/tgc.h>
#include <tgc/grad.h>

#include "ops/blas/batched_dot.h"
#include "ops/blas/dot.h"
#include "ops/blas/outer.h"
#include "ops/core/apply.h"
#include "runtime/random.h"

namespace tgc {
namespace {

Tensor randn(const Shape& shape, int64_t seed) { return RandomState(seed).randn(shape); }

using Fn = std::function<Var(const std::vector<Var>&)>;

void check(const Fn& fn, const std::vector<Tensor>& points) { EXPECT_NO_THROW(verify_grad(fn, points)); }

TEST(DotGrad, VectorVector) {
  check([](const std::vector<Var>& v) { return dot(v[0], v[1]); }, {randn({4}, 1), randn({4}, 2)});
}

TEST(DotGrad, MatrixVector) {
  check([](const std::vector<Var>& v) { return dot(v[0], v[1]); }, {randn({3, 4}, 3), randn({4}, 4)});
  check([](const std::vector<Var>& v) { return dot(v[0].T(), v[1]); }, {randn({4, 3}, 5), randn({4}, 6)});
}

TEST(DotGrad, VectorMatrix) {
  check([](const std::vector<Var>& v) { return dot(v[0], v[1]); }, {randn({3}, 7), randn({3, 5}, 8)});
  check([](const std::vector<Var>& v) { return dot(v[0], v[1].T()); }, {randn({3}, 9), randn({5, 3}, 10)});
}

TEST(DotGrad, MatrixMatrix) {
  check([](const std::vector<Var>& v) { return dot(v[0], v[1]); }, {randn({2, 3}, 11), randn({3, 4}, 12)});
  check([](const std::vector<Var>& v) { return dot(v[0].T(), v[1]); }, {randn({3, 2}, 13), randn({3, 4}, 14)});
  check([](const std::vector<Var>& v) { return dot(v[0], v[1].T()); }, {randn({2, 3}, 15), randn({4, 3}, 16)});
  check([](const std::vector<Var>& v) { return dot(v[0].T(), v[1].T()); }, {randn({3, 2}, 17), randn({4, 3}, 18)});
  // The same variable on both sides: x.T x.
  check([](const std::vector<Var>& v) { return dot(v[0].T(), v[0]); }, {randn({3, 2}, 19)});
}

TEST(DotGrad, EmptyInnerDimension) {
  // (2, 0) . (0, 3) is a (2, 3) of zeros; the gradients are empty (2, 0) and (0, 3).
  Var a = matrix("a", DType::Float64), b = matrix("b", DType::Float64);
  Function f = function({a, b}, grad(dot(a, b).sum(), {a, b}));
  auto g = f(Tensor::zeros(DType::Float64, {2, 0}), Tensor::zeros(DType::Float64, {0, 3}));
  EXPECT_EQ(g.at(0).shape(), (Shape{2, 0}));
  EXPECT_EQ(g.at(1).shape(), (Shape{0, 3}));
}

TEST(DotGrad, HandComputedMatrixVector) {
  // cost = sum(dot(A, x)) = sum_i sum_k A_ik x_k: dA_ik = x_k, dx_k = sum_i A_ik.
  Var a = matrix("a", DType::Float64), x = vector("x", DType::Float64);
  Function f = function({a, x}, grad(dot(a, x).sum(), {a, x}));
  auto g = f(Tensor::from_vector<double>({1, 2, 3, 4, 5, 6}, {2, 3}), Tensor::from_vector<double>({7, 8, 9}, {3}));
  EXPECT_EQ(g.at(0).to_vector<double>(), (std::vector<double>{7, 8, 9, 7, 8, 9}));
  EXPECT_EQ(g.at(1).to_vector<double>(), (std::vector<double>{5, 7, 9}));
}

TEST(DotGrad, MixedDtypesGiveEachInputItsOwnDtype) {
  Var a = matrix("a", DType::Float32), b = matrix("b", DType::Float64);
  auto g = grad(dot(a, b).sum(), {a, b});
  EXPECT_EQ(g[0].ptr()->type().dtype, DType::Float32);
  EXPECT_EQ(g[1].ptr()->type().dtype, DType::Float64);
  Function f = function({a, b}, g);
  auto v = f(Tensor::from_vector<float>({1, 2}, {1, 2}), Tensor::from_vector<double>({3, 4}, {2, 1}));
  EXPECT_EQ(v.at(0).to_vector<float>(), (std::vector<float>{3, 4}));
  EXPECT_EQ(v.at(1).to_vector<double>(), (std::vector<double>{1, 2}));
}

// The rule's answer for one node op(a, b), given an output gradient of the output's type.
std::vector<VarPtr> rule(std::shared_ptr<const Op> op, const VarPtr& a, const VarPtr& b) {
  VarPtr y = apply1(op, {a, b});
  VarPtr g = Variable::input(y->type(), "g");
  return y->owner()->op().grad(*y->owner(), {g});
}

TEST(DotGrad, IntegerOperandsHaveNullGradients) {
  VarPtr xi = matrix("i", DType::Int32).ptr(), xf = matrix("x", DType::Float64).ptr();
  VarPtr vi = vector("j", DType::Int64).ptr();
  for (auto op : {std::shared_ptr<const Op>(std::make_shared<Dot>()), std::shared_ptr<const Op>(std::make_shared<Outer>())}) {
    auto g = rule(op, xi, xf);
    EXPECT_EQ(g.at(0), nullptr) << op->name();
    ASSERT_NE(g.at(1), nullptr) << op->name();
    EXPECT_EQ(g.at(1)->type().dtype, DType::Float64);
  }
  auto g = rule(std::make_shared<BatchedDot>(), tensor3("t", DType::Float64).ptr(), vi);
  EXPECT_NE(g.at(0), nullptr);
  EXPECT_EQ(g.at(1), nullptr);
}

TEST(BatchedDotGrad, Stacks) {
  check([](const std::vector<Var>& v) { return batched_dot(v[0], v[1]); }, {randn({3, 2, 4}, 20), randn({3, 4, 5}, 21)});
  // Transposed last axes of both operands.
  check([](const std::vector<Var>& v) { return batched_dot(v[0].dimshuffle({0, 2, 1}), v[1].dimshuffle({0, 2, 1})); },
        {randn({3, 4, 2}, 22), randn({3, 5, 4}, 23)});
}

TEST(BatchedDotGrad, BroadcastBatchIsSummedOver) {
  // A batch of 1 serves every entry: its gradient sums the entries' (at run time: the
  // static dims are unknown).
  check([](const std::vector<Var>& v) { return batched_dot(v[0], v[1]); }, {randn({1, 2, 3}, 24), randn({4, 3, 2}, 25)});
  check([](const std::vector<Var>& v) { return batched_dot(v[0], v[1]); }, {randn({4, 2, 3}, 26), randn({1, 3, 2}, 27)});
  // Statically known batch of 1.
  Var a = tensor("a", DType::Float64, {1, 2, 2}), b = tensor3("b", DType::Float64);
  Function f = function({a, b}, {grad(batched_dot(a, b).sum(), a)});
  Tensor g = f(Tensor::zeros(DType::Float64, {1, 2, 2}), Tensor::from_vector<double>({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2})).at(0);
  // d/da_ik sum_bij a_ik b_bkj = sum_b sum_j b_bkj: k=0: 1+2+5+6, k=1: 3+4+7+8.
  EXPECT_EQ(g.shape(), (Shape{1, 2, 2}));
  EXPECT_EQ(g.to_vector<double>(), (std::vector<double>{14, 22, 14, 22}));
}

TEST(BatchedDotGrad, MatrixOperands) {
  check([](const std::vector<Var>& v) { return batched_dot(v[0], v[1]); }, {randn({3, 2, 4}, 28), randn({4, 5}, 29)});
  check([](const std::vector<Var>& v) { return batched_dot(v[0], v[1]); }, {randn({2, 4}, 30), randn({3, 4, 5}, 31)});
  check([](const std::vector<Var>& v) { return matmul(v[0], v[1].T()); }, {randn({3, 2, 4}, 32), randn({5, 4}, 33)});
}

TEST(BatchedDotGrad, VectorOperands) {
  check([](const std::vector<Var>& v) { return batched_dot(v[0], v[1]); }, {randn({3, 2, 4}, 34), randn({4}, 35)});
  check([](const std::vector<Var>& v) { return batched_dot(v[0], v[1]); }, {randn({4}, 36), randn({3, 4, 5}, 37)});
}

TEST(BlasGrad, GradientGraphsAreDifferentiableToo) {
  // Second order through the rules' own graphs: d/da of d sum(dot(a, a)^2)/da etc.
  check([](const std::vector<Var>& v) {
    Var y = dot(v[0], v[1]);
    return grad((y * y).sum(), v[0]);
  }, {randn({2, 3}, 44), randn({3, 2}, 45)});
  check([](const std::vector<Var>& v) {
    Var y = batched_dot(v[0], v[1]);
    return grad((y * y).sum(), v[1]);
  }, {randn({2, 2, 3}, 46), randn({3}, 47)});
  check([](const std::vector<Var>& v) {
    Var y = outer(v[0], v[1]);
    return grad((y * y).sum(), v[0]);
  }, {randn({2, 2}, 48), randn({3}, 49)});
}

TEST(OuterGrad, Vectors) {
  check([](const std::vector<Var>& v) { return outer(v[0], v[1]); }, {randn({3}, 38), randn({4}, 39)});
  check([](const std::vector<Var>& v) { return outer(v[0], v[0]); }, {randn({3}, 40)});
}

TEST(OuterGrad, OperandsOfOtherRanksAreFlattened) {
  check([](const std::vector<Var>& v) { return outer(v[0], v[1]); }, {randn({2, 3}, 41), randn({2}, 42)});
  check([](const std::vector<Var>& v) { return outer(v[0], v[1]); }, {Tensor::scalar(1.5), randn({2, 2, 2}, 43)});
  // Hand-computed: d sum(outer(x, y)) / dx = sum(y) everywhere, in x's shape.
  Var x = matrix("x", DType::Float64), y = vector("y", DType::Float64);
  Function f = function({x, y}, {grad(outer(x, y).sum(), x)});
  Tensor g = f(Tensor::zeros(DType::Float64, {2, 2}), Tensor::from_vector<double>({1, 2, 4}, {3})).at(0);
  EXPECT_EQ(g.shape(), (Shape{2, 2}));
  EXPECT_EQ(g.to_vector<double>(), std::vector<double>(4, 7.0));
}

}  // namespace
}  // namespace tgc
