// The optimizer is idempotent: running the fast_run pipeline on a graph it already optimized
// changes nothing. A rewrite that leaves work a second run would find (a constant chain seen
// only after another rule fired, a fill that a later rule could remove) is a rewrite the
// first run missed. Checked on 1000 random graphs (tests/support/random_graph.h, with
// foldable constructs); the examples are checked in tests/cli/optimized_examples_test.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <tgc/tgc.h>

#include "compiler/passes/pipeline.h"
#include "ops/core/graph.h"
#include "support/random_graph.h"

namespace tgc {
namespace {

constexpr int kSeeds = 1000;
constexpr int kDetailedFailures = 5;

// A quarter of the operations are what the constant and fill rules take apart (chains of
// constant scalings, where on constant conditions, fills), the rest the usual mix.
test::RandomGraphOptions graph_options() {
  test::RandomGraphOptions o;
  o.foldable_percent = 25;
  return o;
}

// The graph after one and after two runs of `mode`'s pipeline, printed; or the error.
struct Twice {
  std::string once, twice, error;
};

Twice optimize_twice(const test::RandomGraph& g, const Config& config) {
  Twice t;
  try {
    Graph graph = Graph::clone_of(to_ptrs(g.inputs), to_ptrs(g.outputs));
    const PassContext ctx = make_pass_context(config);
    optimize(graph, ctx);
    t.once = graph.str();
    optimize(graph, ctx);
    t.twice = graph.str();
  } catch (const std::exception& e) {
    t.error = e.what();
  }
  return t;
}

void expect_idempotent(const Config& config) {
  std::vector<int> failed;
  for (int seed = 0; seed < kSeeds; ++seed) {
    Twice t = optimize_twice(test::random_graph(static_cast<uint64_t>(seed), graph_options()), config);
    if (t.error.empty() && t.once == t.twice) continue;
    failed.push_back(seed);
    if (static_cast<int>(failed.size()) <= kDetailedFailures)
      ADD_FAILURE() << "seed " << seed << ", optimizer=" << config.optimizer << " excluding '"
                    << config.optimizer_excluding << "': "
                    << (t.error.empty() ? "the second run changed the graph\nafter one run:\n" + t.once +
                                              "after two runs:\n" + t.twice
                                        : "fails: " + t.error);
  }
  std::string list;
  for (int s : failed) list += " " + std::to_string(s);
  EXPECT_TRUE(failed.empty()) << failed.size() << " of " << kSeeds << " graphs change on a second run:" << list
                              << "\n(rebuild a graph with tgc::test::random_graph(seed, graph_options()))";
}

TEST(OptimizerIdempotence, FastRunTwiceIsFastRunOnce) {
  Config config;
  expect_idempotent(config);
}

TEST(OptimizerIdempotence, GraphRewritesBeforeFusionTwiceAreThemOnce) {
  // After fusion the elementwise nodes are inside Composites, where no rule table looks, so a
  // second fast_run would not see an elementwise rewrite the first one missed. Without the
  // fusion and inplace passes, every node stays where the rules see it.
  Config config;
  config.optimizer_excluding = "decompose_for_fusion:fuse_elemwise:inplace";
  expect_idempotent(config);
}

TEST(OptimizerIdempotence, FastCompileTwiceIsFastCompileOnce) {
  Config config;
  config.optimizer = "fast_compile";
  expect_idempotent(config);
}

TEST(OptimizerIdempotence, FastMathTwiceIsFastMathOnce) {
  // fast_math folds more (float chains and shifts): its fixed point must be one too.
  Config config;
  config.fast_math = true;
  expect_idempotent(config);
}

}  // namespace
}  // namespace tgc
