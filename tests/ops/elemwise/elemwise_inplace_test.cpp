// Elemwise's inplace variants: names, identity, and perform() writing into a handed-over
// input buffer only when nothing but the op's own inputs (laid out like the output) holds it.
#include <gtest/gtest.h>

#include "ops/elemwise/elemwise.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using namespace test;

TEST(ElemwiseInplace, NamesSayWhichInputIsOverwritten) {
  Elemwise add(ScalarOpKind::Add);
  EXPECT_EQ(add.inplace_input(0), -1);
  auto on0 = add.make_inplace(0, 0), on1 = add.make_inplace(0, 1);
  ASSERT_TRUE(on0 && on1);
  EXPECT_EQ(on0->name(), "Elemwise{add,inplace}");
  EXPECT_EQ(on1->name(), "Elemwise{add,inplace=1}");
  EXPECT_EQ(on1->inplace_input(0), 1);
  EXPECT_FALSE(on0->equals(add));
  EXPECT_EQ(add.make_inplace(0, 2), nullptr);  // add has two inputs
  EXPECT_EQ(add.make_inplace(1, 0), nullptr);  // and one output
  EXPECT_EQ(Elemwise(ScalarOpKind::Exp, std::nullopt, DType::Float64).make_inplace(0, 0)->name(),
            "Elemwise{exp,floatX=float64,inplace}");
  EXPECT_EQ(Elemwise(ScalarOpKind::Cast, DType::Int32).make_inplace(0, 0)->name(), "Elemwise{Cast{int32},inplace}");
}

TEST(ElemwiseInplace, WritesIntoTheHandedOverInput) {
  auto op = Elemwise(ScalarOpKind::Add).make_inplace(0, 0);
  Tensor a = iota({3, 4}), b = iota({4});
  // As the executor hands it over: the input entry and the output slot hold the buffer.
  std::vector<Tensor> inputs{a, b};
  std::vector<Tensor> outputs{std::move(a)};
  a = Tensor();
  const void* buffer = inputs[0].raw_data();
  op->perform(inputs, outputs);
  EXPECT_EQ(outputs[0].raw_data(), buffer);
  expect_same(outputs[0], run_op(Elemwise(ScalarOpKind::Add), {iota({3, 4}), iota({4})}));
}

TEST(ElemwiseInplace, TheSameInputTwiceIsFine) {
  auto op = Elemwise(ScalarOpKind::Mul).make_inplace(0, 1);
  Tensor a = iota({5});
  std::vector<Tensor> inputs{a, a};
  std::vector<Tensor> outputs{std::move(a)};
  a = Tensor();
  const void* buffer = inputs[0].raw_data();
  op->perform(inputs, outputs);
  EXPECT_EQ(outputs[0].raw_data(), buffer);
  expect_same(outputs[0], Tensor::from_vector(std::vector<double>{0, 1, 4, 9, 16}));
}

TEST(ElemwiseInplace, FallsBackToAFreshBufferWhenTheBufferIsSharedOrTheLayoutDiffers) {
  auto op = Elemwise(ScalarOpKind::Add).make_inplace(0, 0);
  const Tensor want = run_op(Elemwise(ScalarOpKind::Add), {iota({3, 3}), iota({3, 3}).transpose()});

  // Another holder (a caller's reference): never overwritten.
  Tensor held = iota({3, 3});
  std::vector<Tensor> in1{held, iota({3, 3}).transpose()};
  std::vector<Tensor> out1{held};
  op->perform(in1, out1);
  EXPECT_FALSE(out1[0].shares_buffer(held));
  expect_same(held, iota({3, 3}));
  expect_same(out1[0], want);

  // The other operand is a transposed view of the same buffer: writing row by row would
  // clobber what the transpose reads later.
  Tensor a = iota({3, 3});
  std::vector<Tensor> in2{a, a.transpose()};
  std::vector<Tensor> out2{std::move(a)};
  a = Tensor();
  op->perform(in2, out2);
  EXPECT_FALSE(out2[0].shares_buffer(in2[0]));
  expect_same(out2[0], want);

  // A broadcast input whose buffer is smaller than the output: a fresh buffer.
  Tensor row = iota({3});
  std::vector<Tensor> in3{row, iota({2, 3})};
  std::vector<Tensor> out3{std::move(row)};
  row = Tensor();
  op->perform(in3, out3);
  EXPECT_EQ(out3[0].shape(), (Shape{2, 3}));
  expect_same(out3[0], run_op(Elemwise(ScalarOpKind::Add), {iota({3}), iota({2, 3})}));
}

}  // namespace
}  // namespace tgc
