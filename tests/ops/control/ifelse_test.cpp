// IfElse: the type rule (meet of both branches), errors in the user's names, the reference
// evaluation, the constant-condition rewrite and the gradient (verify_grad, and against where).
#include <tgc/tgc.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ops/control/ifelse.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;

Tensor f64(std::vector<double> v) { return Tensor::from_vector(v); }
Tensor scalar_of(double v) { return Tensor::from_vector(std::vector<double>{v}).reshape({}); }

TEST(IfElseTypes, OutputIsTheMeetOfBothBranches) {
  auto c = Variable::input(Type(DType::Bool, {}), "c");
  auto a = Variable::input(Type(DType::Float32, {3, 1, 4}), "a");
  auto b = Variable::input(Type(DType::Float32, {3, 5, -1}), "b");
  const std::vector<VarPtr> out = make_ifelse(c, {a}, {b});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0]->type(), Type(DType::Float32, {3, -1, -1}));
  EXPECT_FALSE(out[0]->type().broadcastable(1));  // broadcastable only where both are
}

TEST(IfElseTypes, SeveralOutputsAndANumericCondition) {
  Var c = scalar("c", DType::Int32);
  Var x = vector("x", DType::Float64), y = matrix("y", DType::Int64);
  std::vector<Var> out = ifelse(c, {x, y}, {x * 2.0, y + 1});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].ptr()->type().dtype, DType::Float64);
  EXPECT_EQ(out[1].ptr()->type().ndim(), 2);
}

TEST(IfElseErrors, DtypeMismatchNamesThePairAndHintsACast) {
  Var c = scalar("c", DType::Bool);
  Var a = vector("a", DType::Float32), b = vector("b", DType::Float64), d = vector("d", DType::Float32);
  try {
    ifelse(c, {d, a}, {d, b});
    FAIL();
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("'a' (then)"));
    EXPECT_THAT(e.what(), HasSubstr("'b' (else)"));
    EXPECT_THAT(e.what(), HasSubstr("pair 2 of 2"));
    EXPECT_THAT(e.what(), HasSubstr("cast(b, 'float32')"));
  }
}

TEST(IfElseErrors, RankMismatchConditionNotScalarAndUnequalLists) {
  Var c = scalar("c", DType::Bool);
  Var v = vector("v"), m = matrix("m");
  EXPECT_THROW(
      try { ifelse(c, v, m); } catch (const TypeError& e) {
        EXPECT_THAT(e.what(), HasSubstr("differ in rank"));
        throw;
      },
      TypeError);
  EXPECT_THROW(
      try { ifelse(v, v, v); } catch (const TypeError& e) {
        EXPECT_THAT(e.what(), HasSubstr("condition 'v' must be a scalar"));
        throw;
      },
      TypeError);
  EXPECT_THROW(ifelse(c, std::vector<Var>{v, v}, std::vector<Var>{v}), TypeError);
  EXPECT_THROW(ifelse(c, std::vector<Var>{}, std::vector<Var>{}), TypeError);
}

TEST(IfElsePerform, HandsOnTheTakenBranchAndCopiesNothing) {
  IfElse op(2);
  Tensor a = f64({1, 2}), b = f64({3}), x = f64({5}), y = f64({6, 7, 8});
  std::vector<Tensor> out(2);
  op.perform({Tensor::from_vector(std::vector<int32_t>{0}).reshape({}), a, b, x, y}, out);
  EXPECT_TRUE(out[0].shares_buffer(x));
  EXPECT_TRUE(out[1].shares_buffer(y));  // the else shape: (3,)
  op.perform({scalar_of(-0.5), a, b, Tensor(), Tensor()}, out);  // an untaken input may be missing
  EXPECT_TRUE(out[0].shares_buffer(a));
  EXPECT_TRUE(out[1].shares_buffer(b));
  // A skipped branch tells which was taken: the condition is not read (on a device, no wait).
  op.perform({Tensor(), Tensor(), b, x, y}, out);
  EXPECT_TRUE(out[0].shares_buffer(x));
  op.perform({Tensor(), a, b, Tensor(), y}, out);
  EXPECT_TRUE(out[0].shares_buffer(a));
}

TEST(IfElseShapes, KnownOnlyWhenBothBranchesAgree) {
  IfElse op(1);
  EXPECT_EQ(op.infer_shapes({{}, {2, 3}, {2, 3}}), (std::vector<Shape>{{2, 3}}));
  EXPECT_THROW(op.infer_shapes({{}, {2, 3}, {4, 3}}), ShapeError);
}

TEST(IfElseFunction, PicksByConditionWithBranchesOfDifferentShapes) {
  Var c = scalar("c", DType::Int64);
  Var x = vector("x", DType::Float64);
  Function f = function({c, x}, {ifelse(c, x * 2.0, concatenate({x, x}))});
  Tensor yes = f(Tensor::from_vector(std::vector<int64_t>{3}).reshape({}), f64({1, 2}))[0];
  EXPECT_EQ(yes.shape(), (Shape{2}));
  EXPECT_DOUBLE_EQ(yes.at({1}), 4.0);
  Tensor no = f(Tensor::from_vector(std::vector<int64_t>{0}).reshape({}), f64({1, 2}))[0];
  EXPECT_EQ(no.shape(), (Shape{4}));
  EXPECT_DOUBLE_EQ(no.at({3}), 2.0);
}

TEST(IfElseOptimizer, ConstantConditionFoldsToTheBranch) {
  Var x = vector("x", DType::Float64);
  Function f = function({x}, {ifelse(constant(1.0, DType::Float64), exp(x), log(x))}, {}, {.trace_rewrites = true});
  for (const std::string& n : f.toposort()) EXPECT_THAT(n, ::testing::Not(HasSubstr("IfElse")));
  bool folded = false;
  for (const std::string& line : f.rewrite_trace()) folded = folded || line.find("ifelse_constant_condition") != std::string::npos;
  EXPECT_TRUE(folded);
  EXPECT_NEAR(f(f64({1}))[0].at({0}), std::exp(1.0), 1e-12);
}

TEST(IfElseOptimizer, IsNeverFusedIntoAComposite) {
  Var c = scalar("c", DType::Float64);
  Var x = vector("x", DType::Float64);
  Function f = function({c, x}, {exp(ifelse(c, x + 1.0, x * 3.0)) * 2.0});
  int ifelses = 0;
  for (const std::string& n : f.toposort()) {
    if (n.rfind("IfElse", 0) == 0) ++ifelses;
    if (n.rfind("Composite", 0) == 0) {
      EXPECT_THAT(n, ::testing::Not(HasSubstr("IfElse")));
    }
  }
  EXPECT_EQ(ifelses, 1);
  EXPECT_NEAR(f(scalar_of(0), f64({2}))[0].at({0}), 2 * std::exp(6.0), 1e-6);
}

TEST(IfElseGrad, FlowsToTheTakenBranchOnly) {
  Var c = scalar("c", DType::Float64);
  Var x = vector("x", DType::Float64);
  Var y = ifelse(c, sqr(x), x * 3.0).sum();
  Var g = grad(y, x);
  Function f = function({c, x}, {g});
  Tensor taken = f(scalar_of(1), f64({1, 2}))[0];
  EXPECT_DOUBLE_EQ(taken.at({1}), 4.0);
  Tensor other = f(scalar_of(0), f64({1, 2}))[0];
  EXPECT_DOUBLE_EQ(other.at({1}), 3.0);
  // The same as the eager where() with a constant-over-elements condition.
  Var w = where(c, sqr(x), x * 3.0).sum();
  Function fw = function({c, x}, {grad(w, x)});
  EXPECT_DOUBLE_EQ(fw(scalar_of(1), f64({1, 2}))[0].at({1}), 4.0);
  EXPECT_DOUBLE_EQ(fw(scalar_of(0), f64({1, 2}))[0].at({1}), 3.0);
}

TEST(IfElseGrad, VerifyGradOnBothBranches) {
  for (double c : {1.0, 0.0}) {
    verify_grad(
        [c](const std::vector<Var>& in) {
          return ifelse(constant(c, DType::Float64), {in[0] * in[1], in[1]}, {exp(in[0]), sin(in[1])})[0].sum() +
                 ifelse(constant(c, DType::Float64), {in[0] * in[1], in[1]}, {exp(in[0]), sin(in[1])})[1].sum();
        },
        {f64({0.3, -0.7}), f64({1.1, 0.4})});
  }
  // With a symbolic condition: the condition is no point of the check (it gets no gradient).
  Var cv = scalar("cv", DType::Float64);
  Var x = vector("x", DType::Float64);
  Var cost = ifelse(cv, tanh(x), x * x).sum();
  Function f = function({cv, x}, {grad(cost, x)});
  EXPECT_NEAR(f(scalar_of(1), f64({0.5}))[0].at({0}), 1 - std::tanh(0.5) * std::tanh(0.5), 1e-12);
  EXPECT_NEAR(f(scalar_of(0), f64({0.5}))[0].at({0}), 1.0, 1e-12);
}

}  // namespace
}  // namespace tgc
