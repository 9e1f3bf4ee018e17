// RandomStreams through function(): Theano's semantics of default updates (each call draws new
// numbers, seed() starts again, no_default_updates and explicit updates win), the
// distributions' parameters as graph ops, choice and permutation, DrawSize::like, and errors.
#include <tgc/tgc.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "ops/random/philox.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;

std::vector<float> values(const Tensor& t) { return t.to_vector<float>(); }

TEST(RandomStreams, EachCallDrawsNewNumbersAndSeedStartsAgain) {
  RandomStreams rng(1234);
  Var u = rng.uniform({5}, 0.0, 1.0, DType::Float32);
  Function f = function({}, {u});
  const auto a = values(f()[0]), b = values(f()[0]);
  EXPECT_NE(a, b);
  rng.seed(1234);
  EXPECT_EQ(values(f()[0]), a);
  EXPECT_EQ(values(f()[0]), b);
  rng.seed(99);
  EXPECT_NE(values(f()[0]), a);
}

TEST(RandomStreams, TheFirstDrawIsTheDocumentedPhiloxBlock) {
  RandomStreams rng(7);
  Var u = rng.uniform({4}, 0.0, 1.0, DType::Float32);
  Function f = function({}, {u});
  const philox::Words w = philox::block_words(philox::stream_key(7, 0), 0);
  const auto got = values(f()[0]);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(got[static_cast<size_t>(i)], philox::to_float32(w[i]));
  // The state moved on by one block.
  EXPECT_EQ(rng.states()[0].get_value().to_vector<int64_t>()[1], 1);
}

TEST(RandomStreams, NoDefaultUpdatesAndExplicitUpdatesWin) {
  RandomStreams rng(5);
  Var n = rng.normal({3}, 0.0, 1.0, DType::Float64);
  Function same = function({}, {n}, {}, {.no_default_updates = true});
  EXPECT_EQ(same()[0].to_vector<double>(), same()[0].to_vector<double>());
  // An explicit update of the state replaces its default: here it never moves.
  Shared state = rng.states()[0];
  Function fixed = function({}, {n}, {{state, Var(state)}});
  EXPECT_EQ(fixed()[0].to_vector<double>(), fixed()[0].to_vector<double>());
  Function moving = function({}, {n});
  EXPECT_NE(moving()[0].to_vector<double>(), moving()[0].to_vector<double>());
}

TEST(RandomStreams, TwoDrawsAreDistinctStreams) {
  RandomStreams rng(3);
  Var a = rng.uniform({100}), b = rng.uniform({100});
  Function f = function({}, {a, b});
  const auto r = f();
  EXPECT_NE(values(r[0]), values(r[1]));
  EXPECT_EQ(rng.states().size(), 2u);
}

TEST(RandomStreams, ParametersAreGraphOpsAndMayBeVars) {
  RandomStreams rng(11);
  Var lo = scalar("lo", DType::Float32);
  Var u = rng.uniform({1000}, lo, 10.0, DType::Float32);
  Function f = function({lo}, {u});
  const auto v = values(f(Tensor::scalar(5.0f))[0]);
  EXPECT_GE(*std::min_element(v.begin(), v.end()), 5.0f);
  EXPECT_LT(*std::max_element(v.begin(), v.end()), 10.0f);
  Var z = rng.normal({20000}, 3.0, 0.5, DType::Float64);
  const auto zs = function({}, {z})()[0].to_vector<double>();
  double m = 0;
  for (double x : zs) m += x;
  EXPECT_NEAR(m / zs.size(), 3.0, 0.02);
}

TEST(RandomStreams, Float64BoundsKeepFloat64Precision) {
  // low + (high - low) * u with high - low in double, not a floatX literal.
  RandomStreams a(11), b(11);
  Var w = a.uniform({8}, 0.1, 0.7, DType::Float64), u = b.uniform({8}, 0.0, 1.0, DType::Float64);
  const auto got = function({}, {w})()[0].to_vector<double>(), unit = function({}, {u})()[0].to_vector<double>();
  // (A float32 scale would be off by about 1e-8 relative.)
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], 0.1 + (0.7 - 0.1) * unit[i], 1e-15) << i;
}

TEST(RandomStreams, BinomialRandintChoiceAndPermutation) {
  RandomStreams rng(2);
  Var b1 = rng.binomial({100000}, 1, 0.25, DType::Float32);
  Var b5 = rng.binomial({100000}, 5, 0.5);
  Var r = rng.randint({1000}, 3, 6, DType::Int32);
  Var c = rng.choice({2, 5}, 10, /*replace=*/false);
  Var p = rng.permutation(50);
  Var pick = rng.choice({7}, constant(Tensor::from_vector(std::vector<double>{1.5, 2.5, 3.5})));
  Function f = function({}, {b1, b5, r, c, p, pick});
  const auto out = f();
  double s1 = 0;
  for (float x : values(out[0])) s1 += x;
  EXPECT_NEAR(s1 / 100000, 0.25, 0.01);
  double s5 = 0, q5 = 0;
  for (int64_t x : out[1].to_vector<int64_t>()) {
    s5 += static_cast<double>(x);
    q5 += static_cast<double>(x * x);
  }
  EXPECT_NEAR(s5 / 100000, 2.5, 0.02);
  EXPECT_NEAR(q5 / 100000 - 6.25, 1.25, 0.03);  // n p (1 - p)
  const auto ints = out[2].to_vector<int32_t>();
  EXPECT_EQ(std::set<int32_t>(ints.begin(), ints.end()), (std::set<int32_t>{3, 4, 5}));
  EXPECT_EQ(out[3].shape(), (Shape{2, 5}));
  const auto chosen = out[3].to_vector<int64_t>();
  EXPECT_EQ(std::set<int64_t>(chosen.begin(), chosen.end()).size(), 10u);  // distinct, all of 0..9
  auto perm = out[4].to_vector<int64_t>();
  std::sort(perm.begin(), perm.end());
  for (int64_t i = 0; i < 50; ++i) EXPECT_EQ(perm[static_cast<size_t>(i)], i);
  for (double x : out[5].to_vector<double>()) EXPECT_TRUE(x == 1.5 || x == 2.5 || x == 3.5) << x;
  // A second call: a new permutation.
  EXPECT_NE(f()[4].to_vector<int64_t>(), out[4].to_vector<int64_t>());
}

TEST(RandomStreams, WeightedChoiceFollowsTheWeights) {
  RandomStreams rng(8);
  Var p = constant(Tensor::from_vector(std::vector<float>{1, 2, 0, 7}));  // weights, not normalised
  Var c = rng.choice({100000}, 4, true, p);
  Var one = rng.choice({5}, 1, true, constant(Tensor::from_vector(std::vector<double>{3})));
  Var picked = rng.choice({3}, constant(Tensor::from_vector(std::vector<double>{1.5, 2.5})), true,
                          constant(Tensor::from_vector(std::vector<double>{0, 1})));
  const auto out = function({}, {c, one, picked})();
  std::vector<int64_t> count(4, 0);
  for (int64_t k : out[0].to_vector<int64_t>()) ++count.at(static_cast<size_t>(k));
  EXPECT_NEAR(count[0] / 1e5, 0.1, 0.005);
  EXPECT_NEAR(count[1] / 1e5, 0.2, 0.005);
  EXPECT_EQ(count[2], 0);  // a zero weight is never drawn
  EXPECT_NEAR(count[3] / 1e5, 0.7, 0.005);
  for (int64_t k : out[1].to_vector<int64_t>()) EXPECT_EQ(k, 0);
  for (double x : out[2].to_vector<double>()) EXPECT_EQ(x, 2.5);
  EXPECT_THROW(rng.choice({3}, 4, false, p), ValueError);
  EXPECT_THROW(rng.choice({3}, 5, true, p), TypeError);  // 4 weights for 5 elements
}

TEST(RandomStreams, LikeFollowsTheBatch) {
  RandomStreams rng(4);
  Var h = matrix("h", DType::Float32);
  Var dropped = h * rng.binomial(DrawSize::like_of(h), 1, 0.5, DType::Float32);
  Function f = function({h}, {dropped});
  for (int64_t rows : {2, 7}) {
    const Tensor out = f(Tensor::full(DType::Float32, {rows, 3}, 2.0))[0];
    EXPECT_EQ(out.shape(), (Shape{rows, 3}));
    for (float x : values(out)) EXPECT_TRUE(x == 0.0f || x == 2.0f);
  }
}

TEST(RandomStreams, UserDefaultUpdates) {
  Shared count = shared(Tensor::from_vector(std::vector<double>{0}), "count");
  set_default_update(count, Var(count) + 1.0);
  EXPECT_TRUE(default_update(count).defined());
  Function f = function({}, {Var(count) * 2.0});
  f();
  f();
  EXPECT_EQ(count.get_value().to_vector<double>()[0], 2.0);
  clear_default_update(count);
  f();
  EXPECT_EQ(count.get_value().to_vector<double>()[0], 3.0);  // compiled before: keeps its update
  Function g = function({}, {Var(count) * 2.0});
  g();
  EXPECT_EQ(count.get_value().to_vector<double>()[0], 3.0);
  EXPECT_THROW(set_default_update(count, Var(count).astype(DType::Float32)), TypeError);
}

TEST(RandomStreams, ErrorsNameTheCallAndTheFix) {
  RandomStreams rng(1);
  try {
    rng.choice({20}, 10, /*replace=*/false);
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("20 elements without replacement from 10"));
    EXPECT_THAT(e.what(), HasSubstr("hint"));
  }
  EXPECT_THROW(rng.randint({3}, 4, 4), ValueError);
  EXPECT_THROW(rng.binomial(DrawSize::like_of(vector("v")), 3, 0.5), ValueError);
  EXPECT_THROW(rng.uniform({2}, 0.0, 1.0, DType::Int32), TypeError);
  // Failed draws took no stream number: the next draw is stream 0's.
  EXPECT_TRUE(rng.states().empty());
}

}  // namespace
}  // namespace tgc
