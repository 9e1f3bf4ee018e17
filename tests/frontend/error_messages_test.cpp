// User errors read like the user's code: the op, the offending shapes or dtypes, the
// user's variable names, and a hint — at build time and at call time.
#include <tgc/tgc.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tgc {
namespace {

using ::testing::HasSubstr;

TEST(ErrorMessages, MisalignedDotAtCallTimeNamesTheNode) {
  Var x = matrix("x", DType::Float32);
  Shared w = shared(Tensor::zeros(DType::Float32, {785}), "w");
  Var p_1 = dot(x, w).as("p_1");
  Function f = function({x}, {p_1});
  try {
    f(Tensor::zeros(DType::Float32, {400, 784}));
    FAIL() << "expected a ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("dot: shapes (400, 784) and (785,) are not aligned (dim 1 != dim 0) "
                                    "in p_1 = dot(x, w)"));
    EXPECT_THAT(e.what(), HasSubstr("hint: "));
  }
}

TEST(ErrorMessages, MisalignedDotWithStaticShapesFailsAtBuildTime) {
  Var x = tensor("x", DType::Float32, std::vector<int64_t>{400, 784});
  Var w = tensor("w", DType::Float32, std::vector<int64_t>{785});
  try {
    dot(x, w);
    FAIL() << "expected a ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("(400, 784) and (785,) are not aligned"));
    EXPECT_THAT(e.what(), HasSubstr("in dot(x, w)"));
  }
}

TEST(ErrorMessages, BroadcastMismatchAtCallTimeNamesTheNode) {
  Var a = vector("a", DType::Float64), b = vector("b", DType::Float64);
  Var c = (a + b).as("c");
  Function f = function({a, b}, {c});
  try {
    f(Tensor::zeros(DType::Float64, {3}), Tensor::zeros(DType::Float64, {4}));
    FAIL() << "expected a ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("(3,) (4,)"));
    EXPECT_THAT(e.what(), HasSubstr("in c = add(a, b)"));
  }
}

TEST(ErrorMessages, IndexOutOfBoundsAtCallTimeNamesTheNode) {
  Var x = vector("x", DType::Float64);
  Var idx = vector("idx", DType::Int64);
  Function f = function({x, idx}, {x[idx]});
  try {
    f(Tensor::zeros(DType::Float64, {3}), Tensor::from_vector(std::vector<int64_t>{0, 5}));
    FAIL() << "expected a ValueError";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("index 5 is out of bounds for axis 0 with size 3"));
  }
}

TEST(ErrorMessages, WrongRankAtCallTime) {
  Var x = matrix("x", DType::Float32);
  Function f = function({x}, {x * 2.0});
  try {
    f(Tensor::zeros(DType::Float32, {3}));
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("input 'x' expects a float32 matrix (?, ?), got float32 vector of shape (3,)"));
    EXPECT_THAT(e.what(), HasSubstr("hint: reshape"));
  }
}

}  // namespace
}  // namespace tgc
