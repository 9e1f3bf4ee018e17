// Shape facts (PassContext::shared_shapes): a shared variable's dims are its value's sizes,
// so the gradients' run-time shape ops over shared values become identities, plain sums,
// constants and static reshapes; without the facts (or where an input's dim is involved)
// they stay. Checked by value with the shared values the facts describe.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "canon_test_util.h"
#include "compiler/passes/canonicalize.h"
#include "compiler/passes/shape_equivalence.h"
#include "ops/core/apply.h"
#include "ops/gradient/sum_to_like.h"
#include "ops/join/split_like.h"
#include "ops/reduce/reduce_count.h"
#include "ops/shape/reshape_like.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using test::expect_same_results;
using test::op_names;

// The facts of the shared variables' current values.
PassContext with_facts(const std::vector<Shared>& vars) {
  PassContext ctx;
  for (const Shared& s : vars) ctx.shared_shapes[s.ptr()->storage().get()] = s.ptr()->storage()->current().shape();
  return ctx;
}

test::PassRun canon(const std::vector<Var>& inputs, const std::vector<Var>& outputs, const PassContext& ctx) {
  return test::run_pass(canonicalize, inputs, outputs, ctx);
}

int count_containing(const Graph& g, const std::string& part) {
  std::vector<std::string> names = op_names(g);
  return static_cast<int>(std::count_if(names.begin(), names.end(),
                                        [&](const std::string& n) { return n.find(part) != std::string::npos; }));
}

Var sum_to_like(const Var& g, const Var& like) {
  return Var(apply1(std::make_shared<SumToLike>(), {g.ptr(), like.ptr()}));
}

Tensor uniform(const Shape& shape, uint64_t seed) { return RandomState(seed).uniform(0.5, 2.0, shape).astype(DType::Float32); }

TEST(ShapeFacts, ASharedVariablesDimsAreItsValuesSizes) {
  Shared w = shared(uniform({3, 4}, 1), "w"), b = shared(uniform({1, 4}, 2), "b");
  Var x = matrix("x");
  const PassContext ctx = with_facts({w, b});
  ShapeEquivalence facts(&ctx.shared_shapes), none;
  auto sizes = [](ShapeEquivalence& s, const Var& v) {
    std::vector<std::optional<int64_t>> out;
    for (DimId d : s.dims(*v.ptr())) out.push_back(s.known(d));
    return out;
  };
  EXPECT_THAT(sizes(facts, w), ElementsAre(3, 4));
  EXPECT_THAT(sizes(facts, b), ElementsAre(1, 4));
  // What is computed from shared values alone is known too; an input's dim stays unknown.
  EXPECT_THAT(sizes(facts, dot(w.T(), w) + b), ElementsAre(4, 4));
  EXPECT_THAT(sizes(facts, dot(x, w) + b), ElementsAre(std::nullopt, 4));
  // Without facts a shared variable's dims are unknown, like an input's.
  EXPECT_THAT(sizes(none, w), ElementsAre(std::nullopt, std::nullopt));
}

TEST(ShapeFacts, SumToLikeOfASharedValueOfTheSameShapeIsG) {
  // The gradient of sum(w * x) back to w, with x's columns statically 4: w's fact (3, 4)
  // gives w * x the shape (3, 4) whatever x's rows are (3, or 1 broadcast).
  Shared w = shared(uniform({3, 4}, 3), "w");
  Var x = tensor("x", DType::Float32, {-1, 4});
  Var g = sum_to_like(w * x, w);
  auto with = canon({x}, {g}, with_facts({w}));
  EXPECT_EQ(count_containing(with.after, "SumToLike"), 0) << with.after.str();
  expect_same_results(with, 1e-6, 3);
  expect_same_results(with, 1e-6, 1);
  auto without = canon({x}, {g}, {});
  EXPECT_EQ(count_containing(without.after, "SumToLike"), 1) << without.after.str();
}

TEST(ShapeFacts, SumToLikeOfABroadcastSharedValueIsASum) {
  // A bias row b (1, 4) broadcast over x's rows: its gradient sums axis 0, kept as 1. Without
  // the fact b's first dim might be x's, and the sum would be the identity.
  Shared b = shared(uniform({1, 4}, 4), "b");
  Var x = tensor("x", DType::Float32, {-1, 4});
  Var g = sum_to_like(exp(x + b), b);
  auto with = canon({x}, {g}, with_facts({b}));
  EXPECT_THAT(op_names(with.after), ElementsAre("Elemwise{add}", "Elemwise{exp}", "Sum{axis=[0], keepdims=True}"));
  expect_same_results(with, 1e-6, 5);
  expect_same_results(with, 1e-6, 1);
  auto without = canon({x}, {g}, {});
  EXPECT_EQ(count_containing(without.after, "SumToLike"), 1) << without.after.str();
}

TEST(ShapeFacts, SumToLikeOfALowerRankSharedValueSumsTheLeadingAxes) {
  Shared v = shared(uniform({4}, 5), "v");
  Shared m = shared(uniform({6, 4}, 6), "m");
  // m's fact (6, 4) and v's (4,): v's gradient through m * v sums axis 0 of a (6, 4).
  auto r = canon({}, {sum_to_like(m * v, v)}, with_facts({v, m}));
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{mul}", "Sum{axis=[0]}"));
  expect_same_results(r);
}

TEST(ShapeFacts, ReduceCountOfASharedValueIsAConstant) {
  Shared w = shared(uniform({3, 5}, 7), "w");
  Var rows = Var(apply1(std::make_shared<ReduceCount>(std::vector<int>{0}, DType::Float32), {w.ptr()}));
  Var all = Var(apply1(std::make_shared<ReduceCount>(std::nullopt, DType::Int64), {(w * 2.0f).ptr()}));
  auto with = canon({}, {rows, all}, with_facts({w}));
  EXPECT_EQ(count_containing(with.after, "ReduceCount"), 0) << with.after.str();
  expect_same_results(with);
  auto without = canon({}, {rows, all}, {});
  EXPECT_EQ(count_containing(without.after, "ReduceCount"), 2) << without.after.str();
}

TEST(ShapeFacts, ReshapeLikeSplitLikeAndFillOfSharedShapesAreStatic) {
  Shared w = shared(uniform({2, 6}, 8), "w"), a = shared(uniform({2, 2}, 9), "a");
  Var g = vector("g");
  Var reshaped = Var(apply1(std::make_shared<ReshapeLike>(), {flatten(w * 3.0f, 1).ptr(), w.ptr()}));
  std::vector<VarPtr> parts = apply(std::make_shared<SplitLike>(1, 3), {w.ptr(), a.ptr(), a.ptr(), a.ptr()});
  Var filled = fill(w, constant(Tensor::scalar<float>(0.5f)));
  auto with = canon({g}, {reshaped, Var(parts[0]), Var(parts[2]), filled}, with_facts({w, a}));
  EXPECT_EQ(count_containing(with.after, "Like"), 0) << with.after.str();
  EXPECT_EQ(count_containing(with.after, "Fill"), 0) << with.after.str();
  EXPECT_EQ(count_containing(with.after, "Reshape{(2, 6)}"), 1) << with.after.str();
  expect_same_results(with);
  auto without = canon({g}, {reshaped, Var(parts[0]), Var(parts[2]), filled}, {});
  EXPECT_EQ(count_containing(without.after, "Like"), 2) << without.after.str();
  EXPECT_EQ(count_containing(without.after, "Fill"), 1) << without.after.str();
}

// A constant column (what the mean's gradient folds to) times a shared y it does not widen:
// with y's fact the column is a 0-d constant, a kernel literal rather than an operand (and on
// a GPU no transfer); without it y might be 1 row and the column must stay.
TEST(ShapeFacts, AConstantColumnThatASharedValueCoversBecomesAScalar) {
  Shared y = shared(uniform({4, 3}, 11), "y");
  Var column = constant(Tensor::full(DType::Float32, {4, 1}, 0.25));
  auto with = canon({}, {column * y}, with_facts({y}));
  ASSERT_EQ(with.after.toposort().size(), 1u) << with.after.str();
  EXPECT_EQ(with.after.toposort()[0]->inputs()[0]->type().ndim(), 0) << with.after.str();
  expect_same_results(with);
  auto without = canon({}, {column * y}, {});
  EXPECT_EQ(without.after.toposort()[0]->inputs()[0]->type().ndim(), 2) << without.after.str();
}

// The mean's gradient in the MLP: a (256, 1) column of 1/n broadcast over y (256, 10). With
// y's fact, y alone gives the product its shape: the broadcast value goes into the product.
TEST(ShapeFacts, AnAllocThatTheOtherOperandsCoverGoesIntoTheElemwise) {
  Shared y = shared(uniform({4, 3}, 10), "y");
  Var column = alloc(constant(Tensor::scalar<float>(0.25f)), {4, 1});
  auto with = canon({}, {column * y}, with_facts({y}));
  EXPECT_EQ(count_containing(with.after, "Alloc"), 0) << with.after.str();
  expect_same_results(with);
}

}  // namespace
}  // namespace tgc
