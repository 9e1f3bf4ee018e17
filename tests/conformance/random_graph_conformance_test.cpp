// The random-graph property test on every backend: graphs of tests/support/random_graph.h,
// compiled with the default optimizer on the backend under test, give what the per-op
// reference evaluation gives (the optimizer's rewrites allowed for: kRewritten). The
// optimizer's own property test runs thousands of seeds on the reference path; here a few
// hundred per backend check the backend's kernels on graphs nobody wrote by hand.
#include "conformance/conformance.h"
#include "support/random_graph.h"

namespace tgc::conformance {
namespace {

constexpr int kShards = 4;  // separate ctest entries, so ctest -j spreads them

void check_seeds(const std::string& backend, int shard) {
  std::vector<int> failed;
  for (int seed = shard; seed < kRandomGraphSeeds; seed += kShards) {
    test::RandomGraph g = test::random_graph(static_cast<uint64_t>(seed));
    Case c{.name = "random graph " + std::to_string(seed),
           .inputs = g.inputs,
           .outputs = g.outputs,
           .arg_sets = {g.values},
           .tolerance = kRewritten};
    std::string report = check_case(backend, c);
    if (report.empty()) continue;
    if (failed.size() < 5) ADD_FAILURE() << report;
    failed.push_back(seed);
  }
  std::string seeds;
  for (int s : failed) seeds += " " + std::to_string(s);
  EXPECT_TRUE(failed.empty()) << failed.size() << " seeds fail:" << seeds
                              << "\n(rebuild one with tgc::test::random_graph(seed))";
}

TEST_P(Conformance, RandomGraphsShard0) { check_seeds(backend(), 0); }
TEST_P(Conformance, RandomGraphsShard1) { check_seeds(backend(), 1); }
TEST_P(Conformance, RandomGraphsShard2) { check_seeds(backend(), 2); }
TEST_P(Conformance, RandomGraphsShard3) { check_seeds(backend(), 3); }

}  // namespace
}  // namespace tgc::conformance
