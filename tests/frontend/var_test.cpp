// The Var core: constructors, names, constants, shared variables.
#include <tgc/tgc.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tgc {
namespace {

using ::testing::HasSubstr;

TEST(Var, ConstructorsUseFloatXAndRank) {
  EXPECT_EQ(scalar("s").type(), Type(floatX(), {}));
  EXPECT_EQ(matrix("m").type().str(), std::string(dtype_name(floatX())) + " matrix (?, ?)");
  EXPECT_EQ(tensor3("t", DType::Int8).type().str(), "int8 tensor3 (?, ?, ?)");
  EXPECT_EQ(tensor("u", DType::Float64, std::vector<int64_t>{2, -1}).type().str(), "float64 matrix (2, ?)");
  EXPECT_THROW(tensor("bad", DType::Float64, std::vector<int64_t>{-2}), ShapeError);
}

TEST(Var, NamedAndAs) {
  Var x = vector("x");
  Var y = x;  // handles share the variable
  y.named("renamed");
  EXPECT_EQ(x.name(), "renamed");
}

TEST(Var, SharedGetSetValue) {
  Shared w = shared(Tensor::from_vector(std::vector<double>{1, 2}), "w");
  EXPECT_EQ(w.type().str(), "float64 vector (?,)");
  w.set_value(Tensor::from_vector(std::vector<double>{3, 4, 5}));
  EXPECT_EQ(w.get_value().numel(), 3);
  EXPECT_THROW(w.set_value(Tensor::zeros(DType::Float64, {2, 2})), TypeError);
}

TEST(Var, UndefinedVarIsAClearError) {
  Var undefined;
  try {
    function({}, {undefined});
    FAIL();
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("undefined Var"));
  }
}

TEST(Var, CheckedPtrReturnsTheExpressionOrThrows) {
  Var x = vector("x");
  EXPECT_EQ(checked_ptr(x), x.ptr());
  try {
    checked_ptr(Var());
    FAIL() << "expected TypeError";
  } catch (const TypeError& e) {
    EXPECT_EQ(e.what_part(), "an undefined Var was used");
    EXPECT_THAT(e.hint(), HasSubstr("default-constructed Var"));
  }
}

// Every family checks its operands through checked_ptr before reading their types.
TEST(Var, EveryFamilyRejectsAnUndefinedVar) {
  Var u;
  Var m = matrix("m");
  Var i = vector("i", DType::Int64);
  EXPECT_THROW(reshape(u, {2, 3}), TypeError);
  EXPECT_THROW(transpose(u), TypeError);
  EXPECT_THROW(squeeze(u), TypeError);
  EXPECT_THROW(expand_dims(u, 0), TypeError);
  EXPECT_THROW(take(u, i), TypeError);
  EXPECT_THROW(take(m, u), TypeError);
  EXPECT_THROW(set_subtensor(u, 1.0), TypeError);
  EXPECT_THROW(inc_subtensor(m, u), TypeError);
  EXPECT_THROW(sum(u), TypeError);
  EXPECT_THROW(argmax(u), TypeError);
  EXPECT_THROW(softmax(u), TypeError);
  EXPECT_THROW(zeros_like(u), TypeError);
  EXPECT_THROW(split(u, {1, 1}), TypeError);
  EXPECT_THROW(cast(u, DType::Int32), TypeError);
  EXPECT_THROW(dot(m, u), TypeError);
}

TEST(Var, ConstantKeepsDtype) {
  Var c = constant(2.0, DType::Int32);
  EXPECT_EQ(c.dtype(), DType::Int32);
  EXPECT_EQ(c.ptr()->constant_value().item<int32_t>(), 2);
}

}  // namespace
}  // namespace tgc
