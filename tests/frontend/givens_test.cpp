// FunctionOptions::givens (Theano's givens): a free variable replaced by a row of a shared
// dataset picked by an index input (the tutorial's minibatch idiom), a shared variable's
// reads replaced while its update still lands in it, an intermediate replaced, and the errors
// that name the user's variables.
#include <tgc/tgc.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/catch_error.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using test::catch_error;

Tensor f64(std::vector<double> v) { return Tensor::from_vector(v); }

TEST(Givens, AFreeVariableReadsTheDatasetRowPickedByAnIndexInput) {
  Shared data = shared(Tensor::from_vector<double>({1, 2, 3, 4, 5, 6}).reshape({3, 2}), "data");
  Shared w = shared(f64({1.0, 0.0}), "w");
  Var i = scalar("i", DType::Int64);
  Var x = vector("x", DType::Float64);  // never an input: givens supplies it
  Var cost = (x * w).sum();
  Function f = function({i}, {cost}, {{w, w - 0.5 * x}}, {.givens = {{x, data[i]}}});
  // Row 1 is (3, 4); cost = 3 * 1 + 4 * 0; then w = (1, 0) - 0.5 * (3, 4).
  EXPECT_DOUBLE_EQ(f(Tensor::scalar<int64_t>(1))[0].item<double>(), 3.0);
  EXPECT_EQ(w.get_value().to_vector<double>(), (std::vector<double>{-0.5, -2.0}));
  // Row 2 is (5, 6) against the new w.
  EXPECT_DOUBLE_EQ(f(Tensor::scalar<int64_t>(2))[0].item<double>(), 5 * -0.5 + 6 * -2.0);
}

TEST(Givens, ASharedVariablesReadsAreReplacedAndItsUpdateStillLandsInIt) {
  Shared w = shared(f64({1.0, 2.0}), "w");
  Var v = vector("v", DType::Float64);
  // Reads of w become reads of 10 * w; the update target stays w itself.
  Function f = function({v}, {dot(v, w)}, {{w, w + 1.0}}, {.givens = {{w, w * 10.0}}});
  EXPECT_DOUBLE_EQ(f(f64({1, 1}))[0].item<double>(), 30.0);
  EXPECT_EQ(w.get_value().to_vector<double>(), (std::vector<double>{11.0, 21.0}));
}

TEST(Givens, AnIntermediateIsReplacedWhereverItIsRead) {
  Var x = vector("x", DType::Float64);
  Var y = exp(x);
  Var out = y + y.sum();
  Function f = function({x}, {out}, {}, {.givens = {{y, x * 2.0}}});
  EXPECT_EQ(f(f64({1, 2}))[0].to_vector<double>(), (std::vector<double>{2 + 6, 4 + 6}));
}

TEST(Givens, ReplacingAnInputIsAnErrorNamingIt) {
  Var x = vector("x", DType::Float64);
  auto e = catch_error<InputError>([&] { function({x}, {x.sum()}, {}, {.givens = {{x, x * 2.0}}}); });
  EXPECT_THAT(std::string(e.what()), HasSubstr("'x' is an input of the function and is replaced by givens"));
}

TEST(Givens, AReplacementOfAnotherDtypeOrRankIsATypeErrorWithItsHint) {
  Var x = vector("x", DType::Float64);
  Var i = vector("i", DType::Int64);
  Var m = matrix("m", DType::Float64);
  auto dtype = catch_error<TypeError>([&] { function({i}, {x.sum()}, {}, {.givens = {{x, i}}}); });
  EXPECT_THAT(std::string(dtype.what()), HasSubstr("givens replaces 'x', a float64 vector"));
  EXPECT_THAT(dtype.hint(), HasSubstr("astype(DType::float64)"));
  auto rank = catch_error<TypeError>([&] { function({m}, {x.sum()}, {}, {.givens = {{x, m}}}); });
  EXPECT_THAT(rank.hint(), HasSubstr("reshape"));
}

TEST(Givens, AVariableReplacedTwiceOrByItselfOrByNothingIsAnError) {
  Var x = vector("x", DType::Float64);
  Var v = vector("v", DType::Float64);
  auto twice = catch_error<InputError>(
      [&] { function({v}, {x.sum()}, {}, {.givens = {{x, v * 1.0}, {x, v * 2.0}}}); });
  EXPECT_THAT(std::string(twice.what()), HasSubstr("'x' is replaced twice in givens"));
  auto itself = catch_error<InputError>([&] { function({v}, {x.sum()}, {}, {.givens = {{x, x}}}); });
  EXPECT_THAT(std::string(itself.what()), HasSubstr("'x' is given as its own replacement"));
  auto undefined = catch_error<InputError>([&] { function({v}, {v.sum()}, {}, {.givens = {{x, Var()}}}); });
  EXPECT_THAT(std::string(undefined.what()), HasSubstr("givens pair 1 has an undefined Var"));
}

TEST(Givens, AReplacementNeedingAMissingInputNamesThatInput) {
  Var x = vector("x", DType::Float64);
  Var v = vector("v", DType::Float64);
  EXPECT_THROW(function({}, {x.sum()}, {}, {.givens = {{x, v * 2.0}}}), InputError);
}

}  // namespace
}  // namespace tgc
