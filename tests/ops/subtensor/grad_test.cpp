// Gradients of the indexing family (Subtensor, AdvancedSubtensor, IncSubtensor set/inc):
// numeric checks with verify_grad, hand-computed gradients of repeated indices, and the
// null gradients of index arrays and non-float inputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "ops/core/node.h"
#include "runtime/random.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using Vars = std::vector<Var>;

Tensor randn(const Shape& shape, int64_t seed = 1) { return RandomState(seed).randn(shape); }
Var ints(std::vector<int64_t> v, Shape shape) { return constant(Tensor::from_vector(v, shape)); }

TEST(SubtensorGrad, BasicIndexingWithStepsNegativeIndicesAndNewaxis) {
  const Tensor x = randn({5, 4});
  verify_grad([](const Vars& v) { return v[0][{slice(1, std::nullopt, 2), -1}]; }, {x});
  verify_grad([](const Vars& v) { return v[0][{slice(std::nullopt, std::nullopt, -1), newaxis, slice(-3, -1)}]; },
              {x});
  verify_grad([](const Vars& v) { return v[0][{slice(4, 0, -2), slice(std::nullopt, std::nullopt, 3)}]; }, {x});
  verify_grad([](const Vars& v) { return v[0][-2]; }, {x});
  verify_grad([](const Vars& v) { return v[0][{1, 2}]; }, {x});                   // one element (0-d)
  verify_grad([](const Vars& v) { return v[0][{newaxis, colon, newaxis, 1}]; }, {x});
  verify_grad([](const Vars& v) { return v[0][{slice(3, 1)}]; }, {x});            // empty selection
  verify_grad([](const Vars& v) { return v[0][{colon, slice(1, 3), -1}]; }, {randn({2, 4, 3})});
  // Indexing a transposed view, and storing into one.
  verify_grad([](const Vars& v) { return v[0].T()[{slice(1, 3), ints({0, 4, 0}, {3})}]; }, {x});
  verify_grad([](const Vars& v) { return inc_subtensor(v[0].T()[{-1}], v[1]); }, {x, randn({5}, 2)});
}

TEST(SubtensorGrad, BasicIndexingScattersIntoZeros) {
  Var x = matrix("x", DType::Float64);
  Var g = grad(x[{slice(1, std::nullopt, 2), -1}].sum(), x);
  Function f = function({x}, {g});
  Tensor want = Tensor::from_vector<double>({0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0}, {5, 4});
  test::expect_same(f(randn({5, 4}))[0], want);
}

TEST(SubtensorGrad, AdvancedIndexing) {
  const Tensor x = randn({4, 3, 2});
  // Repeated and negative indices accumulate.
  verify_grad([](const Vars& v) { return v[0][ints({0, 2, 0, -1, 2, 2}, {6})]; }, {x});
  verify_grad([](const Vars& v) { return v[0][{colon, ints({1, 1, -3}, {3}), 0}]; }, {x});
  // Two index arrays broadcast together, adjacent and separated by a slice.
  verify_grad([](const Vars& v) { return v[0][{ints({0, 3, 0}, {3, 1}), ints({2, 0}, {2})}]; }, {x});
  verify_grad([](const Vars& v) { return v[0][{ints({1, 1}, {2}), colon, ints({0, 1}, {2})}]; }, {x});
  // A 2-d index array, and an index mixed with newaxis and a negative step.
  verify_grad([](const Vars& v) { return v[0][ints({0, 1, 1, 0}, {2, 2})]; }, {randn({3})});
  verify_grad(
      [](const Vars& v) { return v[0][{newaxis, slice(std::nullopt, std::nullopt, -1), ints({1, 0, 1}, {3})}]; },
      {randn({3, 2})});
  verify_grad([](const Vars& v) { return take(v[0], ints({2, 2, 0}, {3}), 1); }, {randn({2, 3})});
}

TEST(SubtensorGrad, RepeatedIndicesCountEveryRead) {
  Var x = vector("x", DType::Float64);
  Var g = grad(x[ints({0, 0, 2, -3, 2, 2}, {6})].sum(), x);
  Function f = function({x}, {g});
  test::expect_same(f(randn({4}))[0], Tensor::from_vector<double>({2, 1, 3, 0}, {4}));
}

TEST(SubtensorGrad, IncAndSetSubtensorBasic) {
  const Tensor x = randn({4, 3}, 1);
  // v of the indexed shape, and v broadcast along the leading and a size-1 dim.
  for (const Tensor& v : {randn({2, 3}, 2), randn({3}, 3), randn({2, 1}, 4), Tensor::scalar<double>(0.5)}) {
    SCOPED_TRACE(shape_str(v.shape()));
    verify_grad([](const Vars& a) { return inc_subtensor(a[0][{slice(1, 3)}], a[1]); }, {x, v});
    verify_grad([](const Vars& a) { return set_subtensor(a[0][{slice(3, 0, -2)}], a[1]); }, {x, v});
  }
  verify_grad([](const Vars& a) { return set_subtensor(a[0][{colon, -1, newaxis}], a[1]); },
              {randn({3, 4, 2}), randn({3, 1, 2})});
  verify_grad([](const Vars& a) { return inc_subtensor(a[0][{1, 2}], a[1]); }, {x, Tensor::scalar<double>(2.0)});
}

TEST(SubtensorGrad, IncAndSetSubtensorAdvanced) {
  const Tensor x = randn({4, 3}, 1);
  // inc with repeated indices: each occurrence of v adds, so each gets g there.
  verify_grad([](const Vars& a) { return inc_subtensor(a[0][ints({1, -1, 1}, {3})], a[1]); }, {x, randn({3, 3}, 2)});
  verify_grad([](const Vars& a) { return inc_subtensor(a[0][{ints({0, 3, 0}, {3}), ints({2, 2, 2}, {3})}], a[1]); },
              {x, randn({1}, 3)});
  // set with distinct indices (with repeats only the last write counts).
  verify_grad([](const Vars& a) { return set_subtensor(a[0][{colon, ints({2, 0}, {2})}], a[1]); },
              {x, randn({4, 2}, 4)});
  verify_grad([](const Vars& a) { return set_subtensor(a[0][{ints({3, 1}, {2, 1}), ints({0, 2}, {2})}], a[1]); },
              {x, randn({2}, 5)});
}

TEST(SubtensorGrad, IncSubtensorGradientValues) {
  // d/dx sum(set_subtensor(x[1:3], v) * w) = w with rows 1, 2 zeroed; d/dv = w[1:3] summed
  // over the broadcast rows; inc passes w to x whole.
  Var x = matrix("x", DType::Float64), v = vector("v", DType::Float64);
  Var w = constant(test::iota({4, 2}));
  Var set_cost = (set_subtensor(x[{slice(1, 3)}], v) * w).sum();
  Var inc_cost = (inc_subtensor(x[{slice(1, 3)}], v) * w).sum();
  Function f = function({x, v}, {grad(set_cost, x), grad(set_cost, v), grad(inc_cost, x), grad(inc_cost, v)});
  std::vector<Tensor> r = f(randn({4, 2}), randn({2}));
  test::expect_same(r[0], Tensor::from_vector<double>({0, 1, 0, 0, 0, 0, 6, 7}, {4, 2}));
  test::expect_same(r[1], Tensor::from_vector<double>({6, 8}, {2}));
  test::expect_same(r[2], test::iota({4, 2}));
  test::expect_same(r[3], Tensor::from_vector<double>({6, 8}, {2}));
}

TEST(SubtensorGrad, IndexArraysAndNonFloatInputsHaveNoGradient) {
  Var x = matrix("x", DType::Float64);
  Var idx = vector("idx", DType::Int64);
  Var g = matrix("g", DType::Float64);
  {
    Var y = x[idx];
    const Node& node = *y.ptr()->owner();
    std::vector<VarPtr> grads = node.op().grad(node, {g.ptr()});
    ASSERT_EQ(grads.size(), 2u);
    EXPECT_NE(grads[0], nullptr);
    EXPECT_EQ(grads[0]->type(), x.type());
    EXPECT_EQ(grads[1], nullptr);
  }
  {
    Var y = inc_subtensor(x[idx], vector("v", DType::Int32));  // an integer value
    const Node& node = *y.ptr()->owner();
    std::vector<VarPtr> grads = node.op().grad(node, {g.ptr()});
    ASSERT_EQ(grads.size(), 3u);
    EXPECT_NE(grads[0], nullptr);
    EXPECT_EQ(grads[1], nullptr);
    EXPECT_EQ(grads[2], nullptr);
  }
  {
    Var xi = matrix("xi", DType::Int64);
    Var y = xi[0];
    const Node& node = *y.ptr()->owner();
    EXPECT_EQ(node.op().grad(node, {vector("gv", DType::Int64).ptr()}).at(0), nullptr);
  }
}

TEST(SubtensorGrad, ValueOfALowerPrecisionGetsItsOwnDtype) {
  // A float32 value stored into a float64 tensor: its gradient is float32.
  Var x = matrix("x", DType::Float64), v = vector("v", DType::Float32);
  std::vector<Var> gs = grad(inc_subtensor(x[0], v).sum(), {x, v});
  EXPECT_EQ(gs[0].type().dtype, DType::Float64);
  EXPECT_EQ(gs[1].type().dtype, DType::Float32);
  EXPECT_EQ(gs[1].ndim(), 1);
  Function f = function({x, v}, gs);
  std::vector<Tensor> r = f(randn({2, 3}), randn({3}).astype(DType::Float32));
  test::expect_same(r[1], Tensor::full(DType::Float32, {3}, 1.0));
}

}  // namespace
}  // namespace tgc
