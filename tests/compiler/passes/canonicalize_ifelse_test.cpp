// canonicalize's ifelse rules: a constant condition picks its branch, equal branches are their
// value (a several-output ifelse keeps the pairs that differ), and a symbolic condition with
// different branches stays.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "canon_test_util.h"
#include "compiler/passes/canonicalize.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using test::expect_same_results;
using test::op_names;

test::PassRun canon(const std::vector<Var>& inputs, const std::vector<Var>& outputs) {
  return test::run_pass(canonicalize, inputs, outputs);
}

TEST(CanonicalizeIfElse, ConstantConditionIsItsBranch) {
  Var x = vector("x", DType::Float64), y = vector("y", DType::Float64);
  auto r = canon({x, y}, {ifelse(constant(2.0, DType::Float64), x, y), ifelse(constant(0.0, DType::Int32), x, y)});
  EXPECT_TRUE(r.changed);
  EXPECT_TRUE(op_names(r.after).empty());
  EXPECT_EQ(r.after.outputs()[0].get(), r.after.inputs()[0].get());
  EXPECT_EQ(r.after.outputs()[1].get(), r.after.inputs()[1].get());
  expect_same_results(r);
}

TEST(CanonicalizeIfElse, EqualBranchesAreTheirValueAndTheOtherPairsStay) {
  Var c = scalar("c", DType::Int64);
  Var x = vector("x", DType::Float64), y = vector("y", DType::Float64);
  std::vector<Var> out = ifelse(c, {x, exp(y)}, {x, y});
  auto r = canon({c, x, y}, out);
  EXPECT_TRUE(r.changed);
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{exp}", "IfElse"));  // one pair left
  EXPECT_EQ(r.after.outputs()[0].get(), r.after.inputs()[1].get());
}

TEST(CanonicalizeIfElse, SymbolicConditionWithDifferentBranchesStays) {
  Var c = scalar("c", DType::Bool);
  Var x = vector("x", DType::Float64), y = vector("y", DType::Float64);
  auto r = canon({c, x, y}, {ifelse(c, x, y)});
  EXPECT_FALSE(r.changed);
}

}  // namespace
}  // namespace tgc
