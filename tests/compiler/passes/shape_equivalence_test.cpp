// ShapeEquivalence: which dims it proves equal (broadcasts of the same values, static sizes,
// reductions, dot, dimshuffle, sum_to_like) and which it must not (a broadcast against a
// value that may be 1 at run time), and that deep graphs do not overflow the stack.
#include "compiler/passes/shape_equivalence.h"

#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "ops/core/apply.h"
#include "ops/gradient/sum_to_like.h"

namespace tgc {
namespace {

const Variable& v(const Var& x) { return *x.ptr(); }

TEST(ShapeEquivalence, BroadcastsOfTheSameValuesHaveTheSameShape) {
  Var x = vector("x"), y = vector("y");
  ShapeEquivalence s;
  Var a = x * y, b = exp(x) + y * 2.0f, c = -(a - y);
  EXPECT_TRUE(s.same_shape(v(a), v(b)));
  EXPECT_TRUE(s.same_shape(v(a), v(c)));  // bcast(bcast(x, y), y) is bcast(x, y)
  // x may be 1 long while y is not (or the other way round): x * y is not x's shape.
  EXPECT_FALSE(s.same_shape(v(a), v(x)));
  EXPECT_FALSE(s.same_shape(v(x), v(y)));
  EXPECT_TRUE(s.same_shape(v(x + 1.0f), v(exp(x))));
}

TEST(ShapeEquivalence, StaticDimsAreTheirSizes) {
  Var a = tensor("a", DType::Float32, {3, 4}), b = tensor("b", DType::Float32, {3, 4});
  Var m = matrix("m"), row = tensor("row", DType::Float32, {1, 4});
  ShapeEquivalence s;
  EXPECT_TRUE(s.same_shape(v(a), v(b)));
  EXPECT_FALSE(s.same_shape(v(a), v(m)));
  // A known size absorbs unknown dims (they must equal it or be 1): m + a is (3, 4).
  EXPECT_TRUE(s.same_shape(v(m + a), v(a)));
  // A known 1 is the unit of the join: m + one has m's dims; m + row (1, 4) is (?, 4).
  Var one = tensor("one", DType::Float32, {1, 1});
  EXPECT_TRUE(s.same_shape(v(m + one), v(m)));
  EXPECT_FALSE(s.same_shape(v(m + row), v(m)));
  EXPECT_EQ(s.known(s.dims(v(m + row))[1]), 4);
  EXPECT_EQ(s.known(s.dims(v(row))[0]), 1);
  EXPECT_EQ(s.known(s.dims(v(m))[0]), std::nullopt);
}

TEST(ShapeEquivalence, ReductionsDotAndDimshuffle) {
  Var m = matrix("m"), w = vector("w"), n = matrix("n");
  ShapeEquivalence s;
  const std::vector<DimId> md = s.dims(v(m));
  EXPECT_EQ(s.dims(v(dot(m, w))), std::vector<DimId>{md[0]});
  EXPECT_EQ(s.dims(v(dot(m, n)))[0], md[0]);
  EXPECT_EQ(s.dims(v(dot(m, n)))[1], s.dims(v(n))[1]);
  EXPECT_TRUE(s.same_shape(v(sum(m, {1})), v(dot(m, w))));
  EXPECT_TRUE(s.same_shape(v(mean(exp(m), {1})), v(dot(m, w))));
  const std::vector<DimId> kept = s.dims(v(sum(m, {0}, true)));
  EXPECT_EQ(s.known(kept[0]), 1);
  EXPECT_EQ(kept[1], md[1]);
  EXPECT_EQ(s.dims(v(m.T())), (std::vector<DimId>{md[1], md[0]}));
  // The gradient of a broadcast summed back has like's shape.
  Var g = m * w;
  Var summed(apply1(std::make_shared<SumToLike>(), {g.ptr(), w.ptr()}));
  EXPECT_TRUE(s.same_shape(v(summed), v(w)));
  EXPECT_TRUE(s.same_shape(v(fill(m, constant(Tensor::scalar<float>(0.5f)))), v(m)));
}

TEST(ShapeEquivalence, JoinIsABroadcast) {
  Var x = vector("x"), y = vector("y");
  ShapeEquivalence s;
  const DimId a = s.dims(v(x))[0], b = s.dims(v(y))[0];
  const DimId ab = s.join(a, b);
  EXPECT_NE(ab, a);
  EXPECT_EQ(s.join(ab, a), ab);
  EXPECT_EQ(s.join(b, a), ab);
  EXPECT_EQ(s.join(a, s.constant(1)), a);
  EXPECT_EQ(s.join(a, s.constant(5)), s.constant(5));
  EXPECT_EQ(s.join(s.constant(0), a), s.constant(0));
}

TEST(ShapeEquivalence, SoftmaxKeepsItsInputsDims) {
  Var m = matrix("m");
  ShapeEquivalence s;
  EXPECT_TRUE(s.same_shape(v(softmax(m)), v(m)));
  EXPECT_TRUE(s.same_shape(v(log_softmax(m, 0) * m), v(m)));
}

// With shape facts, ops the analysis does not model take the sizes their infer_shapes gives
// for the known input shapes; shapes an op rejects leave its dims unknown.
TEST(ShapeEquivalence, OtherOpsWithKnownInputDimsTakeTheirInferShapes) {
  Shared a = shared(Tensor::zeros(DType::Float32, {2, 4}), "a"), b = shared(Tensor::zeros(DType::Float32, {2, 5}), "b");
  SharedShapeFacts facts{{a.ptr()->storage().get(), {2, 4}}, {b.ptr()->storage().get(), {2, 5}}};
  ShapeEquivalence s(&facts);
  auto sizes = [&](const Var& x) {
    std::vector<std::optional<int64_t>> out;
    for (DimId d : s.dims(v(x))) out.push_back(s.known(d));
    return out;
  };
  EXPECT_EQ(sizes(concatenate({a, a * 2.0f}, 0)), (std::vector<std::optional<int64_t>>{4, 4}));
  EXPECT_EQ(sizes(a[{1}]), (std::vector<std::optional<int64_t>>{4}));
  EXPECT_EQ(sizes(concatenate({a, b}, 1)), (std::vector<std::optional<int64_t>>{2, 9}));
  EXPECT_EQ(sizes(concatenate({a, b}, 0)), (std::vector<std::optional<int64_t>>{std::nullopt, std::nullopt}));
}

TEST(ShapeEquivalence, DeepGraphsDoNotOverflowTheStack) {
  Var x = vector("x");
  Var y = x;
  for (int i = 0; i < 20000; ++i) y = y * 0.5f;
  ShapeEquivalence s;
  EXPECT_TRUE(s.same_shape(v(y), v(x)));
}

}  // namespace
}  // namespace tgc
