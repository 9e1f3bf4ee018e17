// Gradients of the join family (Concatenate, Stack, Split, SplitLike): numeric checks with
// verify_grad along several axes, the split the rules pick (static sizes or sizes read at
// run time), SplitLike's own rules, and null gradients for integer inputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "ops/core/apply.h"
#include "ops/core/node.h"
#include "ops/join/split_like.h"
#include "runtime/random.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using Vars = std::vector<Var>;

Tensor randn(const Shape& shape, int64_t seed = 1) { return RandomState(seed).randn(shape); }

TEST(JoinGrad, ConcatenateAlongSeveralAxes) {
  verify_grad([](const Vars& v) { return concatenate({v[0], v[1]}, 0); }, {randn({2, 3}, 1), randn({4, 3}, 2)});
  verify_grad([](const Vars& v) { return concatenate({v[0], v[1], v[2]}, 1); },
              {randn({2, 1}, 1), randn({2, 3}, 2), randn({2, 2}, 3)});
  verify_grad([](const Vars& v) { return concatenate({v[0], v[1]}, -1); }, {randn({2, 3, 1}, 1), randn({2, 3, 2}, 2)});
  // A zero-length piece, and the same variable twice (its gradients add up).
  verify_grad([](const Vars& v) { return concatenate({v[0], v[1]}, 0); }, {randn({0, 3}, 1), randn({2, 3}, 2)});
  verify_grad([](const Vars& v) { return concatenate({v[0], v[0]}, 1); }, {randn({2, 3}, 1)});
  verify_grad([](const Vars& v) { return concatenate({v[0]}, 0); }, {randn({3}, 1)});
}

TEST(JoinGrad, ConcatenateSplitsByStaticOrRuntimeSizes) {
  Var a = matrix("a", DType::Float64), b = matrix("b", DType::Float64);
  // Unknown sizes along the axis: the pieces are sized like the inputs at run time.
  std::vector<Var> g = grad(concatenate({a, b}, 0).sum(), {a, b});
  ASSERT_NE(g[0].ptr()->owner(), nullptr);
  EXPECT_EQ(g[0].ptr()->owner()->op().name(), "SplitLike{axis=0, n=2}");
  EXPECT_EQ(g[0].ptr()->owner(), g[1].ptr()->owner());
  Function f = function({a, b}, g);
  std::vector<Tensor> r = f(randn({2, 3}), randn({1, 3}));
  test::expect_same(r[0], Tensor::full(DType::Float64, {2, 3}, 1.0));
  test::expect_same(r[1], Tensor::full(DType::Float64, {1, 3}, 1.0));
  // Known sizes along the axis (the other dims may stay unknown): a static Split.
  Var c = tensor("c", DType::Float64, {kUnknownDim, 2}), d = tensor("d", DType::Float64, {kUnknownDim, 3});
  std::vector<Var> h = grad(concatenate({c, d}, 1).sum(), {c, d});
  EXPECT_EQ(h[1].ptr()->owner()->op().name(), "Split{axis=1, sizes=[2, 3]}");
  verify_grad([](const Vars& v) { return concatenate({v[0].reshape({2, 2}), v[1].reshape({2, 3})}, 1); },
              {randn({4}, 1), randn({6}, 2)});
}

TEST(JoinGrad, Stack) {
  for (int axis : {0, 1, 2, -1}) {
    SCOPED_TRACE(axis);
    verify_grad([axis](const Vars& v) { return stack({v[0], v[1], v[2]}, axis); },
                {randn({2, 3}, 1), randn({2, 3}, 2), randn({2, 3}, 3)});
  }
  verify_grad([](const Vars& v) { return stack({v[0], v[1]}); },
              {Tensor::scalar<double>(1.5), Tensor::scalar<double>(-2.0)});
  verify_grad([](const Vars& v) { return stack({v[0], v[0]}, 1); }, {randn({3}, 1)});
}

TEST(JoinGrad, Split) {
  // Reordered pieces, one left out (its gradient is zeros), along several axes.
  verify_grad(
      [](const Vars& v) {
        std::vector<Var> p = split(v[0], {1, 2, 2}, 0);
        return concatenate({p[2], p[0]}, 0);
      },
      {randn({5, 3})});
  verify_grad(
      [](const Vars& v) {
        std::vector<Var> p = split(v[0], {2, 0, 1}, 1);
        return stack({p[0][{colon, 0}], p[2][{colon, 0}]});
      },
      {randn({2, 3})});
  verify_grad([](const Vars& v) { std::vector<Var> p = split(v[0], {3, 1}, -1); return p[1]; }, {randn({2, 2, 4})});
  verify_grad(
      [](const Vars& v) {
        std::vector<Var> p = split(v[0], {2, 2}, 0);
        return concatenate({p[1], p[0], p[1]}, 1);
      },
      {randn({4, 2})});
}

TEST(JoinGrad, SplitGradientValues) {
  Var x = matrix("x", DType::Float64);
  std::vector<Var> p = split(x, {1, 2}, 1);
  Var g = grad((p[1] * constant(test::iota({2, 2}))).sum(), x);  // p[0] does not reach the cost
  Function f = function({x}, {g});
  test::expect_same(f(randn({2, 3}))[0], Tensor::from_vector<double>({0, 0, 1, 0, 2, 3}, {2, 3}));
}

TEST(JoinGrad, IntegerInputsHaveNoGradient) {
  Var a = matrix("a", DType::Float64), i = matrix("i", DType::Int32);
  Var g = matrix("g", DType::Float64);
  for (Var y : {concatenate({a, i}, 0), stack({i, a}, 0)}) {
    const Node& node = *y.ptr()->owner();
    std::vector<VarPtr> grads = node.op().grad(node, {g.ptr()});
    ASSERT_EQ(grads.size(), 2u) << node.op().name();
    EXPECT_EQ((node.inputs()[0] == a.ptr() ? grads[1] : grads[0]), nullptr) << node.op().name();
    EXPECT_NE((node.inputs()[0] == a.ptr() ? grads[0] : grads[1]), nullptr) << node.op().name();
  }
  std::vector<Var> pieces = split(i, {1, 1}, 0);
  const Node& node = *pieces[0].ptr()->owner();
  EXPECT_EQ(node.op().grad(node, {g.ptr(), nullptr}).at(0), nullptr);
}

TEST(JoinGrad, MixedDtypesGetTheirOwnDtype) {
  // The join promotes to float64; each input's gradient comes back in its own dtype.
  Var a = matrix("a", DType::Float32), b = matrix("b", DType::Float64);
  for (Var y : {concatenate({a, b}, 1), stack({a, b}, 2)}) {
    std::vector<Var> g = grad(y.sum(), {a, b});
    EXPECT_EQ(g[0].type().dtype, DType::Float32);
    EXPECT_EQ(g[1].type().dtype, DType::Float64);
    Function f = function({a, b}, g);
    std::vector<Tensor> r = f(randn({2, 2}).astype(DType::Float32), randn({2, 2}));
    test::expect_same(r[0], Tensor::full(DType::Float32, {2, 2}, 1.0));
    test::expect_same(r[1], Tensor::full(DType::Float64, {2, 2}, 1.0));
  }
}

TEST(SplitLike, TypesShapesAndViews) {
  SplitLike op(1, 2);
  std::vector<Type> t = op.infer_types({Type(DType::Float32, {kUnknownDim, 5}), Type(DType::Float64, {4, 2}),
                                        Type(DType::Int8, {1, kUnknownDim})});
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0], Type(DType::Float32, {kUnknownDim, 2}));
  EXPECT_EQ(t[1], Type(DType::Float32, {kUnknownDim, kUnknownDim}));
  EXPECT_EQ(op.infer_shapes({{3, 5}, {7, 2}, {1, 3}}), (std::vector<Shape>{{3, 2}, {3, 3}}));
  const Tensor x = test::iota({2, 5});
  std::vector<Tensor> r =
      test::run_op_all(op, {x, Tensor::zeros(DType::Float64, {9, 4}), Tensor::zeros(DType::Float64, {9, 1})});
  test::expect_same(r[0], Tensor::from_vector<double>({0, 1, 2, 3, 5, 6, 7, 8}, {2, 4}));
  test::expect_same(r[1], Tensor::from_vector<double>({4, 9}, {2, 1}));
  EXPECT_TRUE(r[1].shares_buffer(x));
  EXPECT_EQ(op.name(), "SplitLike{axis=1, n=2}");
  // A transposed (non-contiguous) x: the pieces are views with its strides.
  std::vector<Tensor> t2 = test::run_op_all(op, {test::iota({5, 2}).transpose(), Tensor::zeros(DType::Float64, {1, 3}),
                                                 Tensor::zeros(DType::Float64, {1, 2})});
  test::expect_same(t2[0], Tensor::from_vector<double>({0, 2, 4, 1, 3, 5}, {2, 3}));
  test::expect_same(t2[1], Tensor::from_vector<double>({6, 8, 7, 9}, {2, 2}));
}

TEST(SplitLike, SizesThatDoNotAddUpAreAShapeError) {
  SplitLike op(0, 2);
  try {
    op.infer_types({Type(DType::Float32, {5}), Type(DType::Float32, {2}), Type(DType::Float32, {2})});
    FAIL() << "expected a ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("split_like: the pieces sum to 4 along axis 0 but float32 vector (5,) has size 5"));
  }
  EXPECT_THROW(op.infer_shapes({{5, 2}, {2}, {4}}), ShapeError);
  try {
    op.infer_types({Type(DType::Float32, {5, 2}), Type(DType::Float32, {}), Type(DType::Float32, {2})});
    FAIL() << "expected a TypeError";
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("split_like: piece 0 is sized like a float32 scalar, which has no axis 0"));
  }
  // Its gradient joins the pieces' gradients back (the likes only lend their sizes).
  Var like0 = constant(Tensor::zeros(DType::Float64, {2})), like1 = constant(Tensor::zeros(DType::Float64, {3}));
  verify_grad([&](const Vars& v) {
    std::vector<VarPtr> p = tgc::apply(std::make_shared<SplitLike>(0, 2), {v[0].ptr(), like0.ptr(), like1.ptr()});
    return concatenate({Var(p[1]), Var(p[0]), Var(p[1])}, 0);
  }, {randn({5, 2})});
}

}  // namespace
}  // namespace tgc
