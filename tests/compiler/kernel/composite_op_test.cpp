// Composite: its name, types (as the unfused ops infer them), shapes, values, identity, and
// make_composite's replacements for a group's outputs.
#include "compiler/kernel/composite_op.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/kernel/interpreter.h"
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

// The inplace variant, run as the executor runs it (the dying input's tensor handed over in
// the output slot): the single pass writes into that buffer, the values are the out-of-place
// ones; a broadcast input at run time (the general path) gets a fresh buffer instead.
TEST(Composite, InplaceVariantWritesIntoTheHandedOverInput) {
  Var x = matrix("x"), y = matrix("y");
  Composite c = composite_of({x, y}, {exp(y) * 2.0 + x});
  auto variant = std::dynamic_pointer_cast<const Composite>(c.make_inplace(0, 0));
  ASSERT_NE(variant, nullptr);
  EXPECT_EQ(variant->name(), c.name() + "{inplace=[o0<-i0]}");
  EXPECT_EQ(variant->inplace_input(0), 0);
  const Tensor xs = test::random_tensor({5, 6}, DType::Float32, 1), ys = test::random_tensor({5, 6}, DType::Float32, 2);
  for (const Shape& y_shape : {Shape{5, 6}, Shape{1, 6}}) {
    SCOPED_TRACE(shape_str(y_shape));
    const Tensor y_value = y_shape == xs.shape() ? ys : test::random_tensor(y_shape, DType::Float32, 3);
    std::vector<Tensor> ref(1);
    c.perform({xs, y_value}, ref);
    std::vector<Tensor> inputs{xs.copy(), y_value};
    const void* x_buffer = inputs[0].raw_data();
    std::vector<Tensor> outputs{inputs[0]};  // handed over, as the executor does
    variant->perform(inputs, outputs);
    test::expect_same(outputs[0], ref[0]);
    // The single pass writes into x's buffer (y may broadcast: x is the one overwritten);
    // the value-by-value path, where it runs, takes a fresh buffer.
    const bool fast = kernel_fast_path_applies(c.kernel(), {xs.shape(), y_shape});
    if (y_shape == xs.shape()) {
      EXPECT_TRUE(fast);
    }
    EXPECT_EQ(outputs[0].raw_data() == x_buffer, fast);
  }
}

// In a multi-output kernel an output overwrites only an input it reads. The logistic-
// regression gradient's Composite{neg(i0), ..., sigmoid(i1)} once wrote neg(y) over the
// product i1, and the LLVM loop, which loads an operand when the first output needing it is
// computed, then read -y as the product. Several outputs may each overwrite their own input.
TEST(Composite, MultiOutputKernelsOverwriteOnlyAnInputTheOutputReads) {
  Var x = matrix("x"), y = matrix("y");
  Composite c = composite_of({x, y}, {-x, sigmoid(y), x * y});
  EXPECT_EQ(c.make_inplace(0, 1), nullptr);  // -x does not read y
  EXPECT_EQ(c.make_inplace(1, 0), nullptr);  // sigmoid(y) does not read x
  auto first = std::dynamic_pointer_cast<const Composite>(c.make_inplace(1, 1));
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->make_inplace(2, 1), nullptr);  // y is taken
  auto both = std::dynamic_pointer_cast<const Composite>(first->make_inplace(2, 0));
  ASSERT_NE(both, nullptr);
  EXPECT_EQ(both->name(), c.name() + "{inplace=[o1<-i1, o2<-i0]}");
  EXPECT_EQ(both->make_inplace(0, 0), nullptr);  // x is taken too

  // Run as the executor runs it: both dying inputs handed over; the interpreter writes into
  // them and computes the out-of-place values.
  const Tensor xs = test::random_tensor({5, 6}, DType::Float32, 1), ys = test::random_tensor({5, 6}, DType::Float32, 2);
  std::vector<Tensor> want(3);
  c.perform({xs, ys}, want);
  std::vector<Tensor> inputs{xs.copy(), ys.copy()};
  const void* x_buffer = inputs[0].raw_data();
  const void* y_buffer = inputs[1].raw_data();
  std::vector<Tensor> outputs{Tensor(), inputs[1], inputs[0]};
  both->perform(inputs, outputs);
  EXPECT_EQ(outputs[1].raw_data(), y_buffer);
  EXPECT_EQ(outputs[2].raw_data(), x_buffer);
  for (size_t k = 0; k < 3; ++k) test::expect_same(outputs[k], want[k]);
}

// A reduction overwrites only an input of its output space that the output reads: the
// weights' update sum(x * g, 0) * a + w writes w (the GPU epilogue loads w at the element it
// then stores), never a loop-space input, which the folds of many outputs read. Run as the
// executor runs it, the interpreter gives a reduction's output a buffer of its own (as the
// CPU backend does) and computes the out-of-place values.
TEST(Composite, ReductionsOverwriteOnlyAnInputOfTheirOutputSpace) {
  Var x = matrix("x"), w = vector("w");
  Composite c = composite_of({x, w}, {sum(x, 0) * 2.0 + w});
  ASSERT_TRUE(c.kernel().is_reduction());
  ASSERT_FALSE(c.kernel().inputs[0].in_output_space);
  ASSERT_TRUE(c.kernel().inputs[1].in_output_space);
  EXPECT_EQ(c.make_inplace(0, 0), nullptr);  // x is folded
  auto variant = std::dynamic_pointer_cast<const Composite>(c.make_inplace(0, 1));
  ASSERT_NE(variant, nullptr);
  EXPECT_EQ(variant->name(), c.name() + "{inplace=[o0<-i1]}");
  Composite mean_only = composite_of({x, w}, {sum(x, 0) * 2.0, w * 3.0});
  ASSERT_TRUE(mean_only.kernel().is_reduction());
  EXPECT_EQ(mean_only.make_inplace(0, 1), nullptr);  // sum(x, 0) * 2 does not read w

  const Tensor xs = test::random_tensor({5, 6}, DType::Float32, 1), ws = test::random_tensor({6}, DType::Float32, 2);
  std::vector<Tensor> want(1);
  c.perform({xs, ws}, want);
  std::vector<Tensor> inputs{xs, ws.copy()};
  std::vector<Tensor> outputs{inputs[1]};  // handed over, as the executor does
  variant->perform(inputs, outputs);
  test::expect_same(outputs[0], want[0]);
  test::expect_same(inputs[1], ws);  // a buffer of its own: w is still w
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
