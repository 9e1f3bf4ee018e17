// A function over several ranks of this process, one call for all (data_parallel.devices,
// frontend/api/function_ranks.cpp), over the shared-memory ranks of tests/support/thread_world.h
// (the same path function() takes for CUDA devices over NCCL, tested on GPUs in
// tests/backends/cuda/data_parallel_gpu_test.cpp): training on 2 and 3 ranks gives the
// parameters and costs of one process on the whole batch (float64, 1e-12) in the user's own
// shared variables; the ranks' copies follow a value set between calls; a rank that fails alone
// changes no variable; split shared variables are read in parts; bad options are clear errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "backends/opencl/opencl_backend.h"
#include "frontend/api/function_access.h"
#include "support/data_parallel_mlp.h"
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

// The shared MLP, as one process trains it and over the ranks of a test world.
struct Mlp : test::Mlp {
  FunctionOptions options() const {
    FunctionOptions o;
    o.name = "train";
    o.data_parallel.split = {{x, 0}, {y, 0}};
    return o;
  }
  Function alone() { return function({x, y}, {loss, logits}, updates, {.name = "train"}); }
  // with_logits = false: the loss alone, so a call's collectives are one all_reduce (the cost's
  // and the gradients' sums in one bucket).
  Function on(test::ThreadWorld& world, bool with_logits = true) {
    std::vector<RankSlot> slots;
    for (int r = 0; r < world.size(); ++r) slots.push_back({"cpu", world.group(r)});
    std::vector<Var> outs = {loss};
    if (with_logits) outs.push_back(logits);
    return FunctionAccess::on_ranks({x, y}, outs, updates, options(), slots);
  }
};

void expect_same_params(const Mlp& got, const Mlp& want, const std::string& when) {
  for (size_t p = 0; p < want.params.size(); ++p)
    EXPECT_TRUE(tensors_allclose(got.params[p].get_value(), want.params[p].get_value(), 1e-12, 1e-12))
        << when << ": parameter " << want.params[p].name() << "\n got " << got.params[p].get_value().str() << "\nwant "
        << want.params[p].get_value().str();
}

class FunctionRanks : public ::testing::TestWithParam<int> {};

TEST_P(FunctionRanks, OneCallTrainsAsOneProcessOnTheWholeBatch) {
  const Batches b = make_batches();
  Mlp ref, dp;
  Function alone = ref.alone();
  test::ThreadWorld world(GetParam());
  Function f = dp.on(world);
  for (int s = 0; s < kSteps; ++s) {
    const std::vector<Tensor> want = alone(b.x[s], b.y[s]);
    const std::vector<Tensor> got = f(b.x[s], b.y[s]);
    ASSERT_EQ(got.size(), 2u);
    EXPECT_NEAR(got[0].item<double>(), want[0].item<double>(), 1e-12) << "step " << s;
    // The logits are computed row by row on each rank and come back whole.
    EXPECT_EQ(got[1].shape(), (Shape{kBatch, kClasses}));
    EXPECT_TRUE(tensors_allclose(got[1], want[1], 1e-12, 1e-12)) << "step " << s;
  }
  // Rank 0's updates are the user's variables.
  expect_same_params(dp, ref, "after training");
  EXPECT_EQ(f.shared_variables().size(), dp.params.size());
}

INSTANTIATE_TEST_SUITE_P(Ranks, FunctionRanks, ::testing::Values(2, 3),
                         [](const ::testing::TestParamInfo<int>& i) { return std::to_string(i.param); });

TEST(FunctionRanksCopies, FollowAValueSetBetweenCalls) {
  const Batches b = make_batches();
  Mlp ref, dp;
  Function alone = ref.alone();
  test::ThreadWorld world(2);
  Function f = dp.on(world);
  alone(b.x[0], b.y[0]);
  f(b.x[0], b.y[0]);
  // Changed by set_value, and by another function's update: every rank must see both.
  const Tensor w2 = RandomState(9).randn({kHidden, kClasses});
  ref.params[2].set_value(w2);
  dp.params[2].set_value(w2);
  Function halve_ref = function({}, {}, {{ref.params[0], ref.params[0] * 0.5}});
  Function halve_dp = function({}, {}, {{dp.params[0], dp.params[0] * 0.5}});
  halve_ref();
  halve_dp();
  for (int s = 1; s < kSteps; ++s) {
    const double want = alone(b.x[s], b.y[s])[0].item<double>();
    EXPECT_NEAR(f(b.x[s], b.y[s])[0].item<double>(), want, 1e-12) << "step " << s;
  }
  expect_same_params(dp, ref, "after the changes and three steps");
}

TEST(FunctionRanksCopies, ARankThatFailsAloneChangesNoVariable) {
  const Batches b = make_batches();
  Mlp ref, dp;
  Function alone = ref.alone();
  test::ThreadWorld world(2);
  Function f = dp.on(world, /*with_logits=*/false);
  alone(b.x[0], b.y[0]);
  f(b.x[0], b.y[0]);
  std::vector<Tensor> before;
  for (Shared& p : dp.params) before.push_back(p.get_value());
  // Rank 1 fails in its first all_reduce of the next call; rank 0 finishes its part.
  world.fail_all_reduce(1, 0);
  EXPECT_THAT([&] { f(b.x[1], b.y[1]); }, ::testing::ThrowsMessage<CommError>(::testing::HasSubstr("rank 1 of the test world failed")));
  for (size_t p = 0; p < before.size(); ++p)
    EXPECT_TRUE(tensors_equal(dp.params[p].get_value(), before[p])) << "rank 0 applied its update of " << dp.params[p].name();
  // The ranks still agree: the next calls train on as if the failed one never ran.
  for (int s = 1; s < kSteps; ++s) {
    const double want = alone(b.x[s], b.y[s])[0].item<double>();
    EXPECT_NEAR(f(b.x[s], b.y[s])[0].item<double>(), want, 1e-12) << "step " << s;
  }
  expect_same_params(dp, ref, "after the failure and three steps");
}

TEST(FunctionRanksCopies, ASplitSharedVariableIsReadInPartsByEveryRank) {
  // The batch kept in shared variables (as on a device), split over the ranks, rank 0 included.
  const Batches b = make_batches();
  Mlp ref, dp;
  Shared data_ref = shared(b.x[0], "data"), labels_ref = shared(b.y[0], "labels");
  Shared data_dp = shared(b.x[0], "data"), labels_dp = shared(b.y[0], "labels");
  Function alone = function({}, {ref.loss}, ref.updates, {.givens = {{ref.x, data_ref}, {ref.y, labels_ref}}});
  test::ThreadWorld world(3);
  std::vector<RankSlot> slots;
  for (int r = 0; r < world.size(); ++r) slots.push_back({"cpu", world.group(r)});
  FunctionOptions o;
  o.givens = {{dp.x, data_dp}, {dp.y, labels_dp}};
  o.data_parallel.split = {{data_dp, 0}, {labels_dp, 0}};
  Function f = FunctionAccess::on_ranks({}, {dp.loss}, dp.updates, o, slots);
  for (int s = 0; s < kSteps; ++s) {
    // A new batch set between calls reaches every rank's part.
    data_ref.set_value(b.x[s]);
    labels_ref.set_value(b.y[s]);
    data_dp.set_value(b.x[s]);
    labels_dp.set_value(b.y[s]);
    EXPECT_NEAR(f()[0].item<double>(), alone()[0].item<double>(), 1e-12) << "step " << s;
  }
  expect_same_params(dp, ref, "after training from shared data");
  // shared_variables() names the user's variables, not the ranks' copies.
  const std::vector<Shared> vars = f.shared_variables();
  EXPECT_TRUE(std::any_of(vars.begin(), vars.end(), [&](const Shared& v) { return v.ptr()->storage() == data_dp.ptr()->storage(); }));
}

TEST(FunctionRanksErrors, OptionsThatDoNotFitOneCallAreRefused) {
  Mlp m;
  auto make = [&](FunctionOptions o) { return function({m.x, m.y}, {m.loss}, m.updates, o); };
  FunctionOptions o = m.options();
  o.data_parallel.devices = {"cpu"};
  {
    FunctionOptions bad = o;
    bad.data_parallel.split.clear();
    EXPECT_THAT([&] { make(bad); }, ::testing::ThrowsMessage<InputError>(::testing::HasSubstr("no input is split")));
  }
  {
    FunctionOptions bad = o;
    bad.data_parallel.group = world_group();
    EXPECT_THAT([&] { make(bad); }, ::testing::ThrowsMessage<InputError>(::testing::HasSubstr("both devices and group")));
  }
  {
    FunctionOptions bad = o;
    bad.data_parallel.local_results = true;
    EXPECT_THAT([&] { make(bad); }, ::testing::ThrowsMessage<InputError>(::testing::HasSubstr("local_results")));
  }
  {
    FunctionOptions bad = o;
    bad.data_parallel.local_inputs = true;
    EXPECT_THAT([&] { make(bad); }, ::testing::ThrowsMessage<InputError>(::testing::HasSubstr("local_inputs")));
  }
  {
    FunctionOptions bad = o;
    bad.data_parallel.devices = {"cpu", "cpu"};
    EXPECT_THAT([&] { make(bad); }, ::testing::ThrowsMessage<ConfigError>(::testing::HasSubstr("names cpu twice")));
  }
  {
    FunctionOptions bad = o;
    bad.data_parallel.devices = {"tpu:0"};
    EXPECT_THROW(make(bad), ConfigError);
  }
  {
    Shared data = shared(Tensor::zeros(DType::Float64, {kBatch, kIn}), "data");
    FunctionOptions bad = o;
    bad.data_parallel.split = {{data, 0}};
    EXPECT_THAT([&] { function({}, {sum(data)}, {{data, data * 2.0}}, bad); },
                ::testing::ThrowsMessage<InputError>(::testing::HasSubstr("splits shared variable 'data' over devices and the function updates it")));
  }
}

TEST(FunctionRanksErrors, DevicesOfTwoKindsAreRefused) {
  if (!opencl_available()) GTEST_SKIP() << "needs an OpenCL device beside the cpu";
  Mlp m;
  FunctionOptions o = m.options();
  o.data_parallel.devices = {"cpu", "opencl"};
  EXPECT_THAT([&] { function({m.x, m.y}, {m.loss}, m.updates, o); },
              ::testing::ThrowsMessage<ConfigError>(::testing::HasSubstr("data_parallel.devices mixes cpu and opencl")));
}

TEST(FunctionRanksErrors, ABatchThatDoesNotSplitEvenlyNamesTheInput) {
  Mlp m;
  test::ThreadWorld world(2);
  Function f = m.on(world);
  RandomState rng(1);
  EXPECT_THAT([&] { f(rng.randn({5, kIn}), Tensor::zeros(DType::Float64, {5, kClasses})); },
              ::testing::ThrowsMessage<ShapeError>(::testing::HasSubstr("input 'x' has 5 elements along its split axis 0")));
}

TEST(FunctionRanksDevices, OneDeviceRunsAsAPlainFunction) {
  const Batches b = make_batches();
  Mlp ref, dp;
  Function alone = ref.alone();
  FunctionOptions o = dp.options();
  o.data_parallel.devices = {"cpu"};
  Function f = function({dp.x, dp.y}, {dp.loss, dp.logits}, dp.updates, o);
  for (int s = 0; s < kSteps; ++s)
    EXPECT_NEAR(f(b.x[s], b.y[s])[0].item<double>(), alone(b.x[s], b.y[s])[0].item<double>(), 1e-12);
  expect_same_params(dp, ref, "one device");
}

}  // namespace
}  // namespace tgc
