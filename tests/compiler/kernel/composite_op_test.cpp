// Composite: its name, types (as the unfused ops infer them), shapes, values, identity, and
// make_composite's replacements for a group's outputs.
#include "compiler/kernel/composite_op.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kernel_test_util.h"
#include "ops/elemwise/elemwise.h"
#include "support/catch_error.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;

Composite composite_of(const std::vector<Var>& in, const std::vector<Var>& out) {
  return Composite(lower_group(test::whole_group(in, out).group).kernel);
}

TEST(Composite, NamesItsExpressions) {
  Var x = matrix("x"), y = matrix("y");
  Composite c = composite_of({x, y}, {x + y, x - y});
  EXPECT_EQ(c.name(), "Composite{add(i0,i1), sub(i0,i1)}");
  EXPECT_EQ(c.op_class(), "Composite");
  EXPECT_EQ(c.num_outputs(), 2);
  EXPECT_EQ(composite_of({x}, {sum(sqr(x), 1)}).name(), "Composite{sum{axis=[1]}(square(i0))}");
}

TEST(Composite, InfersTypesAsTheUnfusedOps) {
  Var a = tensor("a", DType::Float32, {3, -1}), b = tensor("b", DType::Float32, {1, 4});
  Var i = tensor("i", DType::Int32, {-1});
  test::WholeGroup w = test::whole_group({a, b, i}, {a * b + i, exp(i)});
  std::vector<VarPtr> replaced = make_composite(w.group);
  ASSERT_EQ(replaced.size(), 2u);
  EXPECT_EQ(replaced[0]->type(), w.group.outputs[0]->type());
  EXPECT_EQ(replaced[0]->type(), Type(DType::Float32, {3, 4}));
  EXPECT_EQ(replaced[1]->type(), Type(DType::Float32, {-1}));

  test::WholeGroup r = test::whole_group({a, b}, {sum(a * b, 0, true), max(a * b, 0, true)});
  std::vector<VarPtr> reduced = make_composite(r.group);
  EXPECT_EQ(reduced[0]->type(), Type(DType::Float32, {1, 4}));
  EXPECT_EQ(reduced[1]->type(), r.group.outputs[1]->type());

  // Operands that the kernel was not built for.
  Composite c = composite_of({a, b}, {a * b});
  EXPECT_THROW(c.infer_types({Type::unknown(DType::Float64, 2), Type::unknown(DType::Float32, 2)}), TypeError);
  EXPECT_THROW(c.infer_types({Type::unknown(DType::Float32, 2)}), TypeError);
  // Static sizes that cannot broadcast are the unfused op's ShapeError.
  EXPECT_THROW(c.infer_types({Type(DType::Float32, {3, 5}), Type(DType::Float32, {1, 4})}), ShapeError);
}

TEST(Composite, PerformsTheGroup) {
  Var x = matrix("x"), y = matrix("y"), b = vector("b");
  test::WholeGroup w = test::whole_group({x, y, b}, {sum(x * y, 1) / 7 + b, max(x - y, 1)});
  std::vector<VarPtr> replaced = make_composite(w.group);
  const std::vector<Tensor> values{test::random_tensor({4, 7}, DType::Float32, 1),
                                   test::random_tensor({4, 7}, DType::Float32, 2),
                                   test::random_tensor({4}, DType::Float32, 3)};
  std::vector<std::pair<Var, Tensor>> givens;
  for (size_t k = 0; k < values.size(); ++k) givens.emplace_back(Var(w.graph.inputs()[k]), values[k]);
  test::GraphEval eval(givens);  // also checks infer_shapes against perform and the static types
  for (size_t j = 0; j < replaced.size(); ++j)
    test::expect_same(eval(Var(replaced[j])), eval(Var(w.group.outputs[j])));
  const Composite& c = static_cast<const Composite&>(replaced[0]->owner()->op());
  EXPECT_EQ(c.infer_shapes({{4, 7}, {4, 7}, {4}}), (std::vector<Shape>{{4}, {4}}));
}

TEST(Composite, IdentityIsTheKernel) {
  Var x = matrix("x"), y = matrix("y");
  Composite a = composite_of({x, y}, {x + y * 2});
  Composite b = composite_of({x, y}, {x + y * 2});
  Composite c = composite_of({x, y}, {x + y * 3});
  EXPECT_TRUE(a.equals(b));
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_FALSE(a.equals(c));
  EXPECT_NE(a.hash(), c.hash());
  EXPECT_FALSE(a.equals(Elemwise(ScalarOpKind::Add)));
  // NaN constants still make a kernel equal to itself; 0.0 and -0.0 are different kernels.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(composite_of({x}, {x * nan}).equals(composite_of({x}, {x * nan})));
  EXPECT_FALSE(composite_of({x}, {x / 0.0}).equals(composite_of({x}, {x / -0.0})));
}

TEST(Composite, HasNoGradient) {
  Var x = matrix("x"), y = matrix("y");
  test::WholeGroup w = test::whole_group({x, y}, {x * y});
  std::vector<VarPtr> replaced = make_composite(w.group);
  Node& node = *replaced[0]->owner();
  EXPECT_THROW(node.op().grad(node, {replaced[0]}), InternalError);
}

}  // namespace
}  // namespace tgc
