// The collective ops over 1, 2 and 3 in-process ranks (tests/support/thread_world.h): each
// result against the collective's definition computed here, along the first and a later axis,
// their gradients against the total cost's derivative, and the type rules' errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "support/thread_world.h"

namespace tgc {
namespace {

// Rank r's value: distinct in every element and on every rank.
Tensor value_of(int rank, Shape shape) {
  Tensor t = Tensor::empty(DType::Float64, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<double>()[i] = 100.0 * rank + static_cast<double>((i * 7) % 11) - 5;
  return t;
}

double at(const Tensor& t, int64_t i, int64_t j) { return t.data<double>()[i * t.shape()[1] + j]; }

class Collectives : public ::testing::TestWithParam<int> {};

TEST_P(Collectives, EachEqualsItsDefinition) {
  const int n = GetParam();
  const Shape shape{6, 6};  // divisible by 1, 2 and 3 along both axes
  test::ThreadWorld world(n);
  std::vector<std::vector<Tensor>> out(n);
  world.run([&](int rank, const CommGroupPtr& g) {
    Var x = matrix("x", DType::Float64);
    Function f = function({x}, {all_reduce(x, "sum", g), all_reduce(x, "mean", g), all_reduce(x, "max", g),
                                all_reduce(x, "min", g), all_gather(x, 0, g), all_gather(x, 1, g),
                                reduce_scatter(x, 0, "sum", g), reduce_scatter(x, 1, "mean", g), broadcast(x, n - 1, g)});
    out[rank] = f(value_of(rank, shape));
  });
  for (int r = 0; r < n; ++r) {
    const std::vector<Tensor>& o = out[r];
    for (int64_t i = 0; i < 6; ++i)
      for (int64_t j = 0; j < 6; ++j) {
        double sum = 0, mx = -1e300, mn = 1e300;
        for (int q = 0; q < n; ++q) {
          const double v = at(value_of(q, shape), i, j);
          sum += v, mx = std::max(mx, v), mn = std::min(mn, v);
        }
        EXPECT_DOUBLE_EQ(at(o[0], i, j), sum);
        EXPECT_DOUBLE_EQ(at(o[1], i, j), sum / n);
        EXPECT_EQ(at(o[2], i, j), mx);
        EXPECT_EQ(at(o[3], i, j), mn);
        EXPECT_EQ(at(o[8], i, j), at(value_of(n - 1, shape), i, j));
      }
    ASSERT_EQ(o[4].shape(), (Shape{6 * n, 6}));
    ASSERT_EQ(o[5].shape(), (Shape{6, 6 * n}));
    for (int q = 0; q < n; ++q)
      for (int64_t i = 0; i < 6; ++i)
        for (int64_t j = 0; j < 6; ++j) {
          EXPECT_EQ(at(o[4], q * 6 + i, j), at(value_of(q, shape), i, j));
          EXPECT_EQ(at(o[5], i, q * 6 + j), at(value_of(q, shape), i, j));
        }
    ASSERT_EQ(o[6].shape(), (Shape{6 / n, 6}));
    ASSERT_EQ(o[7].shape(), (Shape{6, 6 / n}));
    for (int64_t i = 0; i < 6 / n; ++i)
      for (int64_t j = 0; j < 6; ++j) {
        double rows = 0, cols = 0;
        for (int q = 0; q < n; ++q) {
          rows += at(value_of(q, shape), r * (6 / n) + i, j);
          cols += at(value_of(q, shape), j, r * (6 / n) + i);
        }
        EXPECT_DOUBLE_EQ(at(o[6], i, j), rows);
        EXPECT_DOUBLE_EQ(at(o[7], j, i), cols / n);
      }
  }
}

// Rank r's cost is sum(c_r * collective(x_r)); the gradient of the total cost with respect to
// x_r collects every rank's c: all_reduce(sum) -> sum of the c's; all_gather -> each rank's
// block of the c's, summed; reduce_scatter -> c of the rank that keeps each block.
TEST_P(Collectives, GradientsCollectEveryRanksCost) {
  const int n = GetParam();
  test::ThreadWorld world(n);
  std::vector<std::vector<Tensor>> out(n);
  world.run([&](int rank, const CommGroupPtr& g) {
    Var x = matrix("x", DType::Float64);
    const double c = rank + 1.0;
    std::vector<Var> gx;
    for (Var y : {all_reduce(x, "sum", g), all_reduce(x, "mean", g), all_gather(x, 0, g), reduce_scatter(x, 0, "sum", g)})
      gx.push_back(grad(sum(y * c), x));
    Function f = function({x}, gx);
    out[rank] = f(value_of(rank, {6, 2}));
  });
  const double total = n * (n + 1) / 2.0;
  for (int r = 0; r < n; ++r) {
    for (int64_t i = 0; i < 6; ++i) {
      EXPECT_DOUBLE_EQ(at(out[r][0], i, 0), total);
      EXPECT_DOUBLE_EQ(at(out[r][1], i, 0), total / n);
      EXPECT_DOUBLE_EQ(at(out[r][2], i, 1), total);  // every rank's gather holds this block
      EXPECT_DOUBLE_EQ(at(out[r][3], i, 1), i / (6 / n) + 1.0);  // the keeper of row i's block
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, Collectives, ::testing::Values(1, 2, 3));

TEST(Collective, AWorldOfOneIsTheIdentity) {
  Var x = matrix("x", DType::Float64);
  Function f = function({x}, {all_reduce(x), all_gather(x), reduce_scatter(x, 1), broadcast(x)});
  const Tensor v = value_of(0, {2, 3});
  for (const Tensor& t : f(v)) EXPECT_TRUE(tensors_equal(t, v));
}

// Collectives are their own kind in the profile: their time, bytes per call and bus bandwidth.
TEST(Collective, TheProfileCountsCollectivesAsComm) {
  test::ThreadWorld world(2);
  std::vector<std::string> reports(2);
  world.run([&](int rank, const CommGroupPtr& g) {
    Var x = vector("x", DType::Float64);
    FunctionOptions o;
    o.config = {{"profile", "true"}};
    Function f = function({x}, {all_reduce(x * 2.0, "sum", g)}, {}, o);
    f(Tensor::zeros(DType::Float64, {1000}));
    reports[rank] = f.profile_report();
  });
  for (const std::string& r : reports) {
    EXPECT_THAT(r, ::testing::HasSubstr("in comm ops (collectives)"));
    EXPECT_THAT(r, ::testing::HasSubstr("7.8KB (8000B) per call, 1 calls, bus bandwidth"));
    EXPECT_THAT(r, ::testing::HasSubstr("M = comm"));
  }
}

TEST(Collective, ErrorsNameTheCallAndHowToFixIt) {
  Var x = matrix("x", DType::Float64);
  Var i = matrix("i", DType::Int32);
  auto message = [](auto&& fn) -> std::string {
    try {
      fn();
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_THAT(message([&] { all_reduce(x, "avg"); }), ::testing::HasSubstr("unknown reduction 'avg' for a collective"));
  EXPECT_THAT(message([&] { all_reduce(i, "mean"); }), ::testing::HasSubstr("all_reduce(op=mean) of a int32 tensor in all_reduce(i, op=\"mean\")"));
  EXPECT_THAT(message([&] { all_gather(x, 2); }), ::testing::HasSubstr("all_gather"));
  auto two = std::make_shared<CommGroup>(0, 2, "test");
  EXPECT_THAT(message([&] { broadcast(x, 2, two); }), ::testing::HasSubstr("broadcast from root 2 in a group of 2 ranks"));
  Var odd = tensor("odd", DType::Float64, {3, 4});
  EXPECT_THAT(message([&] { reduce_scatter(odd, 0, "sum", two); }),
              ::testing::HasSubstr("the scattered dim must be a multiple of the group's size"));
}

}  // namespace
}  // namespace tgc
