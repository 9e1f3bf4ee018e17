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
