// Variables, constants and shared-variable storage.
#include "ops/core/variable.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ops/core/op.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;

TEST(SharedValue, GetValueCopiesUnlessBorrowed) {
  Tensor v = Tensor::from_vector(std::vector<float>{1, 2, 3});
  SharedValue s(v, "w", /*borrow=*/false);
  EXPECT_FALSE(s.get_value().shares_buffer(s.current()));
  EXPECT_TRUE(s.get_value(/*borrow=*/true).shares_buffer(s.current()));
  EXPECT_FALSE(s.current().shares_buffer(v));  // the initial value was copied
  SharedValue b(v, "b", /*borrow=*/true);
  EXPECT_TRUE(b.current().shares_buffer(v));
}

TEST(SharedValue, SetValueKeepsDtypeAndRankButNotShape) {
  SharedValue s(Tensor::from_vector(std::vector<float>{1, 2, 3}), "w", false);
  s.set_value(Tensor::from_vector(std::vector<float>{4, 5}));
  EXPECT_EQ(s.current().shape(), (Shape{2}));
  try {
    s.set_value(Tensor::from_vector(std::vector<double>{1.0}));
    FAIL();
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("expected a float32 vector (?,), got float64 vector of shape (1,)"));
    EXPECT_THAT(e.what(), HasSubstr("in shared variable w"));
  }
  EXPECT_EQ(s.current().shape(), (Shape{2}));  // unchanged after the failed set
}

TEST(Variable, ConstantLabelShowsItsValue) {
  auto c = Variable::constant(Tensor::scalar<double>(0.5));
  EXPECT_EQ(c->kind(), Variable::Kind::Constant);
  EXPECT_EQ(c->type(), Type(DType::Float64, {}));
  EXPECT_EQ(c->label(), "0.5");
}

TEST(Variable, IdsAreUnique) {
  auto a = Variable::input(Type::unknown(DType::Float32, 0), "a");
  auto b = Variable::input(Type::unknown(DType::Float32, 0), "a");
  EXPECT_NE(a->id(), b->id());
}

TEST(EnsureOutput, ReusesAnUnsharedBufferOfTheRightLayoutOnly) {
  Tensor slot = Tensor::empty(DType::Float32, {4});
  const void* before = slot.raw_data();
  ensure_output(slot, DType::Float32, {4});
  EXPECT_EQ(slot.raw_data(), before);
  Tensor held = slot;  // someone else holds it: must not be overwritten
  ensure_output(slot, DType::Float32, {4});
  EXPECT_NE(slot.raw_data(), before);
  Tensor s2 = Tensor::empty(DType::Float32, {4});
  ensure_output(s2, DType::Float64, {4});
  EXPECT_EQ(s2.dtype(), DType::Float64);
}

TEST(EnsureOutput, ReusesAnUnsharedBufferOfTheRightSizeWhateverItsLayout) {
  // A buffer the memory plan handed over from a value of another shape or dtype.
  Tensor slot = Tensor::empty(DType::Float64, {3, 4}).transpose();
  const void* before = slot.raw_data();
  ensure_output(slot, DType::Float32, {6, 4});
  EXPECT_EQ(slot.raw_data(), before);
  EXPECT_EQ(slot.shape(), (Shape{6, 4}));
  EXPECT_EQ(slot.dtype(), DType::Float32);
  EXPECT_TRUE(slot.is_contiguous());
  ensure_output(slot, DType::Float32, {5});  // fewer bytes: a fresh buffer
  EXPECT_NE(slot.raw_data(), before);
}

TEST(EnsureOutputInplace, KeepsAnInputOnlyWhenItsOtherHoldersAreAliasableInputsOfTheSameLayout) {
  // As the executor hands a dying input over: its slot is emptied, the tensor moves into
  // the output, and the op's input entries still read it. `extra` adds one more holder.
  auto run = [](std::vector<int> positions, std::vector<int> aliasable, bool extra) {
    Tensor x = Tensor::empty(DType::Float32, {2, 3});
    const void* buffer = x.raw_data();
    std::vector<Tensor> inputs;
    for (int p : positions) inputs.push_back(p ? x : Tensor::empty(DType::Float32, {2, 3}));
    Tensor caller = extra ? x : Tensor();
    Tensor slot = std::move(x);
    x = Tensor();
    ensure_output_inplace(slot, DType::Float32, {2, 3}, inputs, aliasable);
    return slot.raw_data() == buffer;
  };
  EXPECT_TRUE(run({1, 0, 1}, {0, 2}, false));   // read twice, both in step with the writes
  EXPECT_FALSE(run({1, 0, 1}, {0}, false));     // input 2 is read out of step (gemm's A)
  EXPECT_FALSE(run({1, 0}, {0}, true));         // a caller holds it
  // Another shape than the output's: a fresh buffer.
  std::vector<Tensor> one{Tensor::empty(DType::Float32, {6})};
  Tensor slot = one[0];
  const void* b = slot.raw_data();
  ensure_output_inplace(slot, DType::Float32, {2, 3}, one, {0});
  EXPECT_NE(slot.raw_data(), b);
}

TEST(Type, StrAndAccepts) {
  Type t(DType::Float32, {kUnknownDim, 784});
  EXPECT_EQ(t.str(), "float32 matrix (?, 784)");
  EXPECT_TRUE(t.accepts(DType::Float32, {400, 784}));
  EXPECT_FALSE(t.accepts(DType::Float32, {400, 785}));
  EXPECT_FALSE(t.accepts(DType::Float64, {400, 784}));
  EXPECT_EQ(Type(DType::Int64, {}).str(), "int64 scalar");
}

}  // namespace
}  // namespace tgc
