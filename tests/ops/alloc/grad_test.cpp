// Gradients of the alloc family: Alloc and Fill pass g to the value, summed over the dims
// it was broadcast along (checked with verify_grad and by hand); Fill's like input, integer
// values, and the input-less Arange and Eye get no gradient.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "ops/alloc/arange.h"
#include "ops/alloc/eye.h"
#include "ops/core/apply.h"
#include "ops/core/node.h"
#include "runtime/random.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using Vars = std::vector<Var>;

Tensor randn(const Shape& shape, int64_t seed = 1) { return RandomState(seed).randn(shape); }

TEST(AllocGrad, AllocWrtTheValue) {
  verify_grad([](const Vars& v) { return alloc(v[0], {2, 3}); }, {Tensor::scalar<double>(0.3)});
  verify_grad([](const Vars& v) { return alloc(v[0], {2, 3}); }, {randn({3})});
  verify_grad([](const Vars& v) { return alloc(v[0], {4, 2, 3}); }, {randn({2, 1})});
  verify_grad([](const Vars& v) { return alloc(v[0], {2, 3}); }, {randn({2, 3})});
  verify_grad([](const Vars& v) { return alloc(v[0], {0, 3}); }, {randn({1, 3})});
}

TEST(AllocGrad, FillWrtTheValue) {
  Var like = constant(Tensor::zeros(DType::Float32, {2, 3}));
  verify_grad([&](const Vars& v) { return fill(like, v[0]); }, {Tensor::scalar<double>(-1.0)});
  verify_grad([&](const Vars& v) { return fill(like, v[0]); }, {randn({3})});
  // The value may broadcast the like too: (2, 1) with (1, 3) fills (2, 3).
  Var row = constant(Tensor::zeros(DType::Float64, {1, 3}));
  verify_grad([&](const Vars& v) { return fill(row, v[0]); }, {randn({2, 1})});
}

TEST(AllocGrad, GradientValues) {
  // d/dv sum(alloc(v, (4, 2, 3)) * w) for v of shape (2, 1): w summed over axes 0 and 2.
  Var v = matrix("v", DType::Float64), s = scalar("s", DType::Float64), like = matrix("like", DType::Float64);
  Var w = constant(test::iota({4, 2, 3}));
  Var ga = grad((alloc(v, {4, 2, 3}) * w).sum(), v);
  Var gf = grad((fill(like, s) * like).sum(), s);
  Function f = function({v, s, like}, {ga, gf});
  std::vector<Tensor> r = f(randn({2, 1}), Tensor::scalar<double>(2.0), test::iota({2, 2}));
  // w[i, j, k] = 6i + 3j + k summed over i < 4, k < 3: 120 + 12 * 3j (NumPy: [120, 156]).
  test::expect_same(r[0], Tensor::from_vector<double>({120, 156}, {2, 1}));
  test::expect_same(r[1], Tensor::scalar<double>(6.0));
}

TEST(AllocGrad, NoGradientForLikeIntegersAndRanges) {
  Var g = matrix("g", DType::Float64);
  {
    Var y = fill(matrix("like", DType::Float64), scalar("s", DType::Float64));
    const Node& node = *y.ptr()->owner();
    std::vector<VarPtr> grads = node.op().grad(node, {g.ptr()});
    ASSERT_EQ(grads.size(), 2u);
    EXPECT_EQ(grads[0], nullptr);
    ASSERT_NE(grads[1], nullptr);
    EXPECT_EQ(grads[1]->type().ndim(), 0);
  }
  {
    Var y = alloc(scalar("i", DType::Int32), {2, 2});
    const Node& node = *y.ptr()->owner();
    EXPECT_EQ(node.op().grad(node, {matrix("gi", DType::Int32).ptr()}).at(0), nullptr);
  }
  for (Var y : {arange(5.0), eye(3)}) {
    const Node& node = *y.ptr()->owner();
    EXPECT_TRUE(node.op().grad(node, {y.ptr()}).empty()) << node.op().name();
  }
}

}  // namespace
}  // namespace tgc
