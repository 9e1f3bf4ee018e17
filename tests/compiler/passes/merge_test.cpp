// merge: duplicate subexpressions and equal constants become one; different ops, inputs,
// dtypes or large constants do not; merging cascades and scales to large graphs.
#include "compiler/passes/merge.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "canon_test_util.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using test::expect_same_results;
using test::op_names;

test::PassRun merged(const std::vector<Var>& inputs, const std::vector<Var>& outputs) {
  return test::run_pass(merge, inputs, outputs);
}

TEST(Merge, DuplicateSubexpressionsBecomeOne) {
  Var x = matrix("x");
  auto r = merged({x}, {exp(x) + exp(x)});
  EXPECT_TRUE(r.changed);
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{exp}", "Elemwise{add}"));
  Node* add = r.after.toposort().back();
  EXPECT_EQ(add->inputs()[0].get(), add->inputs()[1].get());
  expect_same_results(r);
}

TEST(Merge, EqualConstantsMergeAndTheirReadersCascade) {
  Var x = matrix("x");
  // Each "* 2" reads its own constant 2: once the constants are one, the products are equal,
  // then the sums.
  Var a = (exp(x) * 2) + 1, b = (exp(x) * 2) + 1;
  auto r = merged({x}, {a * b});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{exp}", "Elemwise{mul}", "Elemwise{add}", "Elemwise{mul}"));
  expect_same_results(r);
}

TEST(Merge, DifferentOpsOrInputsStayApart) {
  Var x = matrix("x"), y = matrix("y");
  auto r = merged({x, y}, {exp(x) + log(x), exp(x) * exp(y), sum(x, 0) + sum(x, 1)});
  EXPECT_THAT(op_names(r.after),
              ElementsAre("Elemwise{exp}", "Elemwise{log}", "Elemwise{add}", "Elemwise{exp}", "Elemwise{mul}",
                          "Sum{axis=[0]}", "Sum{axis=[1]}", "Elemwise{add}"));
}

TEST(Merge, ConstantsOfDifferentDtypeOrValueStayApart) {
  Var x = vector("x", DType::Float64);
  auto r = merged({x}, {x + constant(1.0, DType::Float32), x + constant(1.0, DType::Float64),
                        x + constant(Tensor::from_vector<double>({1, 2})), x + constant(Tensor::from_vector<double>({1, 3})),
                        x + constant(0.0, DType::Float64), x + constant(-0.0, DType::Float64)});
  EXPECT_FALSE(r.changed);
  EXPECT_EQ(op_names(r.after).size(), 6u);
}

TEST(Merge, EqualConstantsAreOne) {
  Var x = vector("x");
  Tensor value = Tensor::from_vector<float>({1, 2, 3});
  auto r = merged({x}, {x * constant(value), x * constant(value.copy()), constant(value.copy())});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{mul}"));
  EXPECT_EQ(r.after.outputs()[0].get(), r.after.outputs()[1].get());
  EXPECT_EQ(r.after.outputs()[2].get(), r.after.toposort()[0]->inputs()[1].get());
  expect_same_results(r);
}

TEST(Merge, LargeConstantsAreNotCompared) {
  Var x = vector("x");
  Tensor big = Tensor::zeros(DType::Float32, {kMergeConstantLimit + 1});
  auto r = merged({x}, {x + constant(big), x + constant(big.copy())});
  EXPECT_FALSE(r.changed);
  EXPECT_EQ(op_names(r.after).size(), 2u);
}

TEST(Merge, MultiOutputNodesMergeEveryOutput) {
  Var x = vector("x");
  std::vector<Var> p = split(x, {2, 3}), q = split(x, {2, 3});
  auto r = merged({x}, {p[0] + q[0], p[1] * q[1]});
  EXPECT_THAT(op_names(r.after), ElementsAre("Split{axis=0, sizes=[2, 3]}", "Elemwise{add}", "Elemwise{mul}"));
  expect_same_results(r, 1e-6, 5);
}

TEST(Merge, DuplicateOutputsBecomeTheSameVariable) {
  Var x = matrix("x");
  auto r = merged({x}, {exp(x), exp(x)});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{exp}"));
  EXPECT_EQ(r.after.outputs()[0].get(), r.after.outputs()[1].get());
  expect_same_results(r);
}

TEST(Merge, NothingToMergeIsUnchanged) {
  Var x = matrix("x");
  auto r = merged({x}, {exp(x) + 1});
  EXPECT_FALSE(r.changed);
}

TEST(Merge, ALargeGraphWithADuplicateAtEveryLevel) {
  // 3 nodes a level, two of them equal: 6,000 nodes merge to 4,000 in one walk.
  Var x = vector("x");
  Var v = x;
  const int levels = 2000;
  for (int i = 0; i < levels; ++i) v = tanh(v) * tanh(v);
  auto r = merged({x}, {v});
  EXPECT_EQ(r.before.toposort().size(), 3u * levels);
  EXPECT_EQ(r.after.toposort().size(), 2u * levels);
  EXPECT_FALSE(merge(r.after, PassContext{}));
}

TEST(Merge, TraceNamesEachMerge) {
  Var x = matrix("x");
  std::vector<RewriteEvent> trace;
  PassContext ctx;
  ctx.trace = &trace;
  test::run_pass(merge, {x}, {exp(x) + exp(x)}, ctx);
  ASSERT_EQ(trace.size(), 1u);
  EXPECT_EQ(trace[0].rewrite, "merge");
  EXPECT_EQ(trace[0].before, "Elemwise{exp}(x)");
}

}  // namespace
}  // namespace tgc
