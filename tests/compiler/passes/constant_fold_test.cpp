// constant_fold: constant subexpressions are computed once (cascading through their
// readers); large allocations, shared variables and failing evaluations are left alone.
#include "compiler/passes/constant_fold.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "canon_test_util.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using test::expect_same_results;
using test::op_names;

test::PassRun folded(const std::vector<Var>& inputs, const std::vector<Var>& outputs) {
  return test::run_pass(constant_fold, inputs, outputs);
}

TEST(ConstantFold, ACascadeOfConstantNodesBecomesOneConstant) {
  Var x = vector("x");
  Var c = constant(Tensor::from_vector<float>({1, 2, 3}));
  auto r = folded({x}, {x + (exp(c) * 2 + 1).sum()});
  EXPECT_TRUE(r.changed);
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{add}"));
  const VarPtr& folded_sum = r.after.toposort()[0]->inputs()[1];
  ASSERT_EQ(folded_sum->kind(), Variable::Kind::Constant);
  EXPECT_EQ(folded_sum->type(), Type(DType::Float32, {}));
  expect_same_results(r);
}

TEST(ConstantFold, AnAllOutputConstantGraphIsAConstant) {
  auto r = folded({}, {arange(5) * 2});
  EXPECT_THAT(op_names(r.after), IsEmpty());
  ASSERT_EQ(r.after.outputs()[0]->kind(), Variable::Kind::Constant);
  EXPECT_EQ(r.after.outputs()[0]->constant_value().to_vector<int64_t>(), (std::vector<int64_t>{0, 2, 4, 6, 8}));
}

TEST(ConstantFold, SmallAllocationsFoldAndLargeOnesStayLazy) {
  Var x = matrix("x");
  // 200 x 200 = 40,000 elements folds; 300 x 300 = 90,000 is over the limit (2^16), so the
  // Alloc stays and the addition reading it stays too.
  auto r = folded({x}, {x + zeros({200, 200}), x + (ones({300, 300}) * 2)});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{add}", "Alloc{(300, 300)}", "Elemwise{mul}", "Elemwise{add}"));
  EXPECT_EQ(r.after.toposort()[0]->inputs()[1]->kind(), Variable::Kind::Constant);
}

TEST(ConstantFold, TheLimitIsOnEachOutput) {
  // Exactly at the limit folds; one element more does not.
  auto at = folded({}, {zeros({kConstantFoldLimit})});
  EXPECT_THAT(op_names(at.after), IsEmpty());
  auto over = folded({}, {zeros({kConstantFoldLimit + 1})});
  EXPECT_FALSE(over.changed);
}

TEST(ConstantFold, SharedVariablesAreNotConstants) {
  Shared w = shared(Tensor::from_vector<float>({1, 2}), "w");
  Var x = vector("x");
  auto r = folded({x}, {x * exp(w)});
  EXPECT_FALSE(r.changed);
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{exp}", "Elemwise{mul}"));
}

TEST(ConstantFold, AFailingEvaluationIsLeftForRunTime) {
  Var x = scalar("x", DType::Int32);
  // Integer division by zero raises when the function runs, naming the node.
  Var bad = floor_div(constant(1.0, DType::Int32), constant(0.0, DType::Int32));
  auto r = folded({x}, {x + bad});
  EXPECT_FALSE(r.changed);
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{floor_div}", "Elemwise{add}"));
}

TEST(ConstantFold, MultiOutputNodesFoldEveryOutput) {
  Var x = vector("x");
  std::vector<Var> p = split(constant(Tensor::from_vector<float>({1, 2, 3, 4, 5})), {2, 3});
  auto r = folded({x}, {x + p[1], p[0]});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{add}"));
  EXPECT_EQ(r.after.outputs()[1]->kind(), Variable::Kind::Constant);
  expect_same_results(r);
}

TEST(ConstantFold, FoldedViewsOwnTheirStorage) {
  Tensor value = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Var c = constant(value);
  auto r = folded({}, {c.T()});
  ASSERT_EQ(r.after.outputs()[0]->kind(), Variable::Kind::Constant);
  const Tensor& t = r.after.outputs()[0]->constant_value();
  EXPECT_FALSE(t.shares_buffer(c.ptr()->constant_value()));
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_TRUE(tensors_equal(t, value.transpose()));
}

TEST(ConstantFold, NodesReadingAnInputStay) {
  Var x = vector("x");
  auto r = folded({x}, {exp(x) + 1});
  EXPECT_FALSE(r.changed);
}

}  // namespace
}  // namespace tgc
