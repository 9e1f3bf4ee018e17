// Data-parallel functions (FunctionOptions::data_parallel, compiler/data_parallel.h) over the
// in-process ranks of tests/support/thread_world.h: training on 2 and 3 ranks gives the
// parameters and costs of one process on the whole batch (float64, 1e-12); the compiler
// keeps the MLP's work split (collectives only for the gradients and the cost, the small ones
// in one bucket); bad splits are clear errors. The same training under mpirun, over MPI, is tests/frontend/mpi/.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "compiler/data_parallel.h"
#include "ops/collective/collective_op.h"
#include "ops/core/graph.h"
#include "support/data_parallel_mlp.h"
#include "support/one_hot.h"
#include "support/thread_world.h"

namespace tgc {
namespace {

using test::Batches;
using test::kBatch;
using test::kClasses;
using test::kHidden;
using test::kIn;
using test::kSteps;
using test::make_batches;

// The shared MLP, compiled data-parallel over `group` (or alone).
struct Mlp : test::Mlp {
  using test::Mlp::Mlp;
  Function compile(const CommGroupPtr& group, bool local_results = false) {
    FunctionOptions o;
    o.name = "train";
    if (group) o.data_parallel = {.split = {{x, 0}, {y, 0}}, .group = group, .local_results = local_results};
    return function({x, y}, {loss, logits}, updates, o);
  }
};

struct Training {
  std::vector<double> losses;
  std::vector<Tensor> params, logits;
};

Training train_alone(const Batches& b) {
  Mlp m;
  Function f = m.compile(nullptr);
  Training r;
  for (int s = 0; s < kSteps; ++s) {
    std::vector<Tensor> out = f(b.x[s], b.y[s]);
    r.losses.push_back(out[0].item<double>());
    r.logits.push_back(out[1]);
  }
  for (Shared& p : m.params) r.params.push_back(p.get_value());
  return r;
}

void expect_close(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  EXPECT_TRUE(tensors_allclose(got, want, 1e-12, 1e-12)) << what << "\n got " << got.str() << "\nwant " << want.str();
}

class DataParallelTraining : public ::testing::TestWithParam<int> {};

TEST_P(DataParallelTraining, EqualsOneProcessOnTheWholeBatch) {
  const Batches b = make_batches();
  const Training alone = train_alone(b);
  test::ThreadWorld world(GetParam());
  std::vector<Training> runs(world.size());
  world.run([&](int rank, const CommGroupPtr& group) {
    Mlp m(/*shift=*/rank);  // rank 0's values are broadcast when the function is made
    Function f = m.compile(group);
    Training& r = runs[rank];
    for (int s = 0; s < kSteps; ++s) {
      std::vector<Tensor> out = f(b.x[s], b.y[s]);
      r.losses.push_back(out[0].item<double>());
      r.logits.push_back(out[1]);
    }
    for (Shared& p : m.params) r.params.push_back(p.get_value());
  });
  for (int rank = 0; rank < world.size(); ++rank) {
    for (int s = 0; s < kSteps; ++s) {
      EXPECT_NEAR(runs[rank].losses[s], alone.losses[s], 1e-12) << "rank " << rank << " step " << s;
      expect_close(runs[rank].logits[s], alone.logits[s], "gathered logits");
    }
    for (size_t p = 0; p < alone.params.size(); ++p) {
      expect_close(runs[rank].params[p], alone.params[p], "parameter " + std::to_string(p));
      // Replicas stay bit-identical.
      EXPECT_TRUE(tensors_equal(runs[rank].params[p], runs[0].params[p])) << "rank " << rank;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, DataParallelTraining, ::testing::Values(2, 3));

TEST(DataParallel, LocalResultsAreTheRanksPart) {
  const Batches b = make_batches();
  const Training alone = train_alone(b);
  test::ThreadWorld world(2);
  std::vector<Tensor> logits(2);
  world.run([&](int rank, const CommGroupPtr& group) {
    Mlp m;
    Function f = m.compile(group, /*local_results=*/true);
    logits[rank] = f(b.x[0], b.y[0])[1];
  });
  for (int rank = 0; rank < 2; ++rank) {
    const Tensor& whole = alone.logits[0];
    const Tensor part = whole.view({kBatch / 2, kClasses}, whole.strides(), rank * (kBatch / 2) * kClasses).copy();
    expect_close(logits[rank], part, "rank " + std::to_string(rank) + "'s logits");
  }
}

// The MLP's step keeps every activation split: the only collectives are the sums of the four
// gradients and of the cost, and nothing is gathered except the logits the caller asked for.
TEST(DataParallel, TheMlpStepMovesOnlyGradientsAndTheCost) {
  Mlp m;
  auto group = std::make_shared<CommGroup>(0, 2, "test");
  DataParallelSpec spec{.group = group, .split = {}, .local_results = true, .first_update = 2};
  std::vector<VarPtr> outs{m.loss.ptr(), m.logits.ptr()};
  for (auto& [target, value] : m.updates) outs.push_back(value.ptr());
  Graph g = Graph::clone_of({m.x.ptr(), m.y.ptr()}, outs);
  spec.split = {{g.inputs()[0].get(), 0}, {g.inputs()[1].get(), 0}};
  std::vector<std::string> notes;
  Graph local = distribute(g, spec, &notes);
  int reduces = 0, gathers = 0;
  for (Node* n : local.toposort()) {
    if (n->op().op_class() != "Collective") continue;
    (n->op().name().rfind("AllReduce{sum", 0) == 0 ? reduces : gathers)++;
  }
  EXPECT_EQ(reduces, 5) << local.str();
  EXPECT_EQ(gathers, 0) << local.str();
  EXPECT_THAT(notes, ::testing::IsEmpty());
}

// The cost's and the four small gradients' sums share one all_reduce (bucket_collectives:
// DDP's buckets) and still give one process's training (EqualsOneProcessOnTheWholeBatch runs
// with them); without the pass each keeps its own.
TEST(DataParallel, SmallGradientsShareOneAllReduce) {
  test::ThreadWorld world(2);
  std::vector<int> bucketed(2), alone(2);
  world.run([&](int rank, const CommGroupPtr& group) {
    auto all_reduces = [](const Function& f) {
      int n = 0;
      for (const std::string& node : f.toposort()) n += node.rfind("AllReduce{sum", 0) == 0;
      return n;
    };
    Mlp m;
    bucketed[rank] = all_reduces(m.compile(group));
    FunctionOptions o;
    o.data_parallel = {.split = {{m.x, 0}, {m.y, 0}}, .group = group};
    o.config = {{"optimizer_excluding", "bucket_collectives"}};
    alone[rank] = all_reduces(function({m.x, m.y}, {m.loss, m.logits}, m.updates, o));
  });
  EXPECT_EQ(bucketed, (std::vector<int>{1, 1}));
  EXPECT_EQ(alone, (std::vector<int>{5, 5}));
}

// A dataset kept in shared variables (on a GPU it stays on the device): each rank's split
// shared variable holds its own part, which is not replaced by rank 0's.
TEST(DataParallel, ASplitSharedVariableHoldsEachRanksPart) {
  RandomState rng(11);
  const Tensor xs = rng.randn({kBatch, kIn}), ys = rng.randn({kBatch});
  auto train = [&](const CommGroupPtr& group, int rank, int size) {
    const int64_t part = kBatch / size;
    Shared x = shared(xs.view({part, kIn}, xs.strides(), rank * part * kIn).copy(), "xs");
    Shared y = shared(ys.view({part}, ys.strides(), rank * part).copy(), "ys");
    Shared w = shared(Tensor::zeros(DType::Float64, {kIn}), "w");
    Var loss = mean(sqr(dot(x, w) - y));
    FunctionOptions o;
    if (group) o.data_parallel = {.split = {{x, 0}, {y, 0}}, .group = group};
    Function f = function({}, {loss}, {{w, w - 0.1 * grad(loss, w)}}, o);
    for (int s = 0; s < kSteps; ++s) f();
    return std::make_pair(f()[0].item<double>(), w.get_value());
  };
  const auto alone = train(nullptr, 0, 1);
  test::ThreadWorld world(3);
  world.run([&](int rank, const CommGroupPtr& group) {
    const auto got = train(group, rank, 3);
    EXPECT_NEAR(got.first, alone.first, 1e-12);
    expect_close(got.second, alone.second, "w on rank " + std::to_string(rank));
  });
}

// A batch norm over a split batch normalizes by the whole batch's statistics (their sums are
// all-reduced, as the formula it stands for distributes), and x is never gathered: two ranks
// train gamma, beta and the running statistics as one process does.
struct BatchNormNet {
  Var x = matrix("x", DType::Float64);
  Shared gamma = shared(Tensor::from_vector<double>({1, 2, 0.5}), "gamma");
  Shared beta = shared(Tensor::zeros(DType::Float64, {3}), "beta");
  Shared rm = shared(Tensor::zeros(DType::Float64, {3}), "rm");
  Shared rv = shared(Tensor::full(DType::Float64, {3}, 1.0), "rv");
  BatchNormTrain bn = batch_normalization_train(x, gamma, beta, rm, rv);
  Var loss = mean(square(bn.y * constant(Tensor::from_vector<double>({1, -2, 3}))) + bn.y);
  Function compile(const CommGroupPtr& group) {
    const std::vector<Var> g = grad(loss, {gamma, beta});
    Updates u = bn.updates;
    u.push_back({gamma, gamma - 0.1 * g[0]});
    u.push_back({beta, beta - 0.1 * g[1]});
    FunctionOptions o;
    if (group) o.data_parallel = {.split = {{x, 0}}, .group = group};
    return function({x}, {loss}, u, o);
  }
  std::vector<Tensor> state() { return {gamma.get_value(), beta.get_value(), rm.get_value(), rv.get_value()}; }
};

TEST(DataParallel, BatchNormNormalizesByTheWholeBatch) {
  const std::vector<Tensor> batches{RandomState(3).normal(1.0, 2.0, {8, 3}), RandomState(4).normal(-1.0, 0.5, {8, 3})};
  BatchNormNet alone;
  Function f = alone.compile(nullptr);
  std::vector<double> losses;
  for (const Tensor& b : batches) losses.push_back(f(b)[0].item<double>());
  test::ThreadWorld world(2);
  std::vector<std::vector<Tensor>> states(2);
  std::vector<std::vector<double>> rank_losses(2);
  world.run([&](int rank, const CommGroupPtr& group) {
    BatchNormNet net;
    Function g = net.compile(group);
    for (const Tensor& b : batches) rank_losses[rank].push_back(g(b)[0].item<double>());
    states[rank] = net.state();
  });
  for (int rank = 0; rank < 2; ++rank) {
    for (size_t s = 0; s < batches.size(); ++s) EXPECT_NEAR(rank_losses[rank][s], losses[s], 1e-12);
    const std::vector<Tensor> want = alone.state();
    for (size_t i = 0; i < want.size(); ++i) expect_close(states[rank][i], want[i], "state " + std::to_string(i));
  }
  // The rank graph sums the statistics' partials; it gathers nothing.
  BatchNormNet net;
  auto group = std::make_shared<CommGroup>(0, 2, "test");
  Graph g = Graph::clone_of({net.x.ptr()}, {net.loss.ptr(), grad(net.loss, {net.gamma})[0].ptr()});
  DataParallelSpec spec{.group = group, .split = {{g.inputs()[0].get(), 0}}, .local_results = false, .first_update = 2};
  std::vector<std::string> notes;
  Graph local = distribute(g, spec, &notes);
  for (Node* n : local.toposort()) EXPECT_EQ(n->op().name().rfind("AllGather", 0), std::string::npos) << local.str();
  EXPECT_THAT(notes, ::testing::IsEmpty());
}

TEST(DataParallel, SplittingWhatIsNotAnInputIsAnError) {
  Mlp m;
  FunctionOptions o;
  o.data_parallel.split = {{m.logits, 0}};
  try {
    function({m.x, m.y}, {m.loss}, {}, o);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("which is not an input of the function"));
  }
}

TEST(DataParallel, ABatchThatDoesNotDivideAmongTheRanksIsAnError) {
  test::ThreadWorld world(3);
  std::vector<std::string> errors(3);
  world.run([&](int rank, const CommGroupPtr& group) {
    Mlp m;
    Function f = m.compile(group);
    RandomState rng(1);
    try {
      f(rng.randn({10, kIn}), rng.randn({10, kClasses}));
    } catch (const ShapeError& e) {
      errors[rank] = e.what();
    }
  });
  for (const std::string& e : errors)
    EXPECT_THAT(e, ::testing::HasSubstr("has 10 elements along its split axis 0, which do not divide evenly among 3 ranks"));
}

}  // namespace
}  // namespace tgc
