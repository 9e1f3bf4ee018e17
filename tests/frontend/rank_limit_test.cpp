// The rank limit (runtime/rank_limit.h: 64, NumPy's) at every C++ API call that makes a rank:
// input constructors, shared variables, constants, and ops whose result would have more
// dimensions (reshape, dimshuffle, expand_dims, alloc). Rank 64 is accepted everywhere; one
// more is a ShapeError that names the call and the limit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "runtime/rank_limit.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;

// The message of the ShapeError `make` throws ("" and a failure when it throws none).
template <typename Make>
std::string rank_error(Make make) {
  try {
    make();
  } catch (const ShapeError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ShapeError";
  return "";
}

void expect_over_limit(const std::string& msg, const std::string& where) {
  EXPECT_THAT(msg, HasSubstr("a tensor of 65 dimensions is over the limit of 64"));
  EXPECT_THAT(msg, HasSubstr(where));
  EXPECT_THAT(msg, HasSubstr("hint: a tensor has at most 64 dimensions (NumPy's limit)"));
}

TEST(RankLimit, IsNumPys) { EXPECT_EQ(kMaxRank, 64); }

TEST(RankLimit, InputConstructors) {
  EXPECT_EQ(tensor("x", DType::Float32, std::vector<int64_t>(64, -1)).ndim(), 64);
  expect_over_limit(rank_error([] { tensor("x", DType::Float32, std::vector<int64_t>(65, -1)); }), "tensor 'x'");
}

TEST(RankLimit, SharedVariablesAndConstants) {
  EXPECT_EQ(shared(Tensor::zeros(DType::Float32, Shape(64, 1)), "s").ndim(), 64);
  expect_over_limit(rank_error([] { shared(Tensor::zeros(DType::Float32, Shape(65, 1)), "s"); }), "shared variable 's'");
  EXPECT_EQ(constant(Tensor::zeros(DType::Float32, Shape(64, 1))).ndim(), 64);
  expect_over_limit(rank_error([] { constant(Tensor::zeros(DType::Float32, Shape(65, 1)), "c"); }), "constant 'c'");
}

TEST(RankLimit, OpsWhoseResultWouldBeDeeper) {
  Var x = tensor("x", DType::Float32, std::vector<int64_t>(64, 1));
  EXPECT_EQ(reshape(x, std::vector<int64_t>(64, 1)).ndim(), 64);
  expect_over_limit(rank_error([&] { reshape(x, std::vector<int64_t>(65, 1)); }), "reshape(x");
  std::vector<int> pattern{-1};
  for (int d = 0; d < 64; ++d) pattern.push_back(d);
  expect_over_limit(rank_error([&] { dimshuffle(x, pattern); }), "(x)");
  expect_over_limit(rank_error([&] { expand_dims(x, 0); }), "(x)");
  expect_over_limit(rank_error([] { alloc(constant(1.0, DType::Float32), std::vector<int64_t>(65, 1)); }), "alloc");
}

}  // namespace
}  // namespace tgc
