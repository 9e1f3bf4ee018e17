// Data-parallel training over MPI: every rank of `mpirun -np N` runs this program. Each trains
// the same MLP on the same global batches twice: alone (an ordinary function), and as one rank
// of a data-parallel function over the launch's world; the two must agree to 1e-12 (float64),
// and every rank's parameters must be bit-identical to rank 0's. A second entry point, run on
// its own (--gtest_filter=*RankThatRaises*), checks that a rank that fails before a collective
// makes the others fail with CommError within comm_timeout instead of hanging.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include <tgc/tgc.h>

#include "support/one_hot.h"

namespace tgc {
namespace {

constexpr int64_t kBatch = 24, kIn = 9, kHidden = 6, kClasses = 4;
constexpr int kSteps = 5;

struct Mlp {
  Var x = matrix("x", DType::Float64), y = matrix("y", DType::Float64);
  std::vector<Shared> params;
  Var loss;
  Updates updates;

  explicit Mlp(double shift) {
    RandomState rng(7);
    params = {shared(rng.randn({kIn, kHidden}), "w1"), shared(Tensor::full(DType::Float64, {kHidden}, shift), "b1"),
              shared(rng.randn({kHidden, kClasses}), "w2"), shared(Tensor::zeros(DType::Float64, {kClasses}), "b2")};
    Var h = maximum(dot(x, params[0]) + params[1], 0.0);
    Var logits = dot(h, params[2]) + params[3];
    loss = -mean(sum(y * log_softmax(logits), 1));
    std::vector<Var> wrt(params.begin(), params.end());
    std::vector<Var> g = grad(loss, wrt);
    for (size_t i = 0; i < params.size(); ++i) updates.emplace_back(params[i], params[i] - 0.3 * g[i]);
  }
};

std::pair<Tensor, Tensor> batch(int step) {
  RandomState rng(100 + step);
  Tensor x = rng.randn({kBatch, kIn});
  return {x, test::one_hot(rng.randint(0, kClasses, {kBatch}), kClasses)};
}

TEST(DataParallelMpi, TrainsAsOneProcessOnTheWholeBatch) {
  ASSERT_GT(world_size(), 1) << "run under mpirun -np 2 or more";
  Mlp alone(0.0), ranked(/*shift=*/rank());  // rank 0's values reach every rank
  Function f_alone = function({alone.x, alone.y}, {alone.loss}, alone.updates);
  FunctionOptions o;
  o.data_parallel.split = {{ranked.x, 0}, {ranked.y, 0}};
  Function f = function({ranked.x, ranked.y}, {ranked.loss}, ranked.updates, o);
  for (int s = 0; s < kSteps; ++s) {
    auto [x, y] = batch(s);
    const double want = f_alone(x, y)[0].item<double>();
    const double got = f(x, y)[0].item<double>();
    EXPECT_NEAR(got, want, 1e-12) << "step " << s << " on rank " << rank();
  }
  Var p = vector("p", DType::Float64);
  Function gather = function({p}, {all_gather(p)});
  for (size_t i = 0; i < alone.params.size(); ++i) {
    const Tensor mine = ranked.params[i].get_value();
    EXPECT_TRUE(tensors_allclose(mine, alone.params[i].get_value(), 1e-12, 1e-12)) << "parameter " << i;
    // Bit-identical replicas: every rank's copy equals rank 0's.
    const Tensor all = gather(mine.reshape({mine.numel()}))[0];
    for (int r = 0; r < world_size(); ++r)
      EXPECT_EQ(std::memcmp(all.data<double>() + r * mine.numel(), all.data<double>(), mine.nbytes()), 0)
          << "parameter " << i << " differs on rank " << r;
  }
}

TEST(DataParallelMpi, RankThatRaisesMakesTheOthersFailInsteadOfHanging) {
  ASSERT_GT(world_size(), 1) << "run under mpirun -np 2 or more";
  Mlp m(0.0);
  FunctionOptions o;
  o.data_parallel.split = {{m.x, 0}, {m.y, 0}};
  Function f = function({m.x, m.y}, {m.loss}, m.updates, o);
  auto [x, y] = batch(0);
  if (rank() == 1) {
    // A wrong argument: this rank raises before its first collective and never joins.
    EXPECT_THROW(f(x, Tensor::zeros(DType::Float32, {kBatch, kClasses})), InputError);
    return;
  }
  try {
    f(x, y);
    FAIL() << "rank " << rank() << " finished a step rank 1 never joined";
  } catch (const CommError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("did not complete within"));
  }
}

}  // namespace
}  // namespace tgc
