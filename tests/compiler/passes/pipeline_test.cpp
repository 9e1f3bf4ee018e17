// The pipeline table and optimize(): modes, optimizer_excluding validation, verification.
#include "compiler/passes/pipeline.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "ops/core/apply.h"
#include "support/catch_error.h"
#include "support/test_ops.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;

TEST(Pipeline, NoneRunsOnlyPlacementAndFastCompileIsASubsetOfFastRun) {
  ASSERT_EQ(pipeline("none").size(), 1u);
  EXPECT_EQ(pipeline("none")[0].name, "placement");
  std::set<std::string> fast_run;
  for (const PassInfo& p : pipeline("fast_run")) fast_run.insert(std::string(p.name));
  for (const PassInfo& p : pipeline("fast_compile")) {
    EXPECT_TRUE(fast_run.count(std::string(p.name))) << p.name;
    EXPECT_TRUE(p.phase == "canonicalize" || p.phase == "stabilize" || p.phase == "float32" ||
                p.phase == "placement")
        << p.name;
  }
}

TEST(Pipeline, PhasesRunInTheDesignedOrder) {
  const std::vector<std::string> order = {"canonicalize", "loops",     "stabilize", "float32", "specialize",
                                          "fusion",       "placement", "inplace",   "memory"};
  size_t at = 0;
  for (const PassInfo& p : pipeline("fast_run")) {
    size_t phase = std::find(order.begin(), order.end(), std::string(p.phase)) - order.begin();
    ASSERT_LT(phase, order.size()) << p.name << " has an unknown phase " << p.phase;
    EXPECT_GE(phase, at) << p.name << " runs out of phase order";
    at = phase;
    EXPECT_FALSE(p.reason.empty()) << p.name;
  }
}

TEST(Pipeline, PlacementCannotBeExcluded) {
  Config c;
  c.optimizer_excluding = "placement";
  auto e = test::catch_error<ConfigError>([&] { make_pass_context(c); });
  EXPECT_THAT(e.what(), HasSubstr("cannot be left out"));
  EXPECT_THAT(e.hint(), HasSubstr("device=cpu"));
}

TEST(Pipeline, NamesAreUnique) {
  std::vector<std::string> names = optimizer_names();
  std::set<std::string> unique(names.begin(), names.end());
  EXPECT_EQ(unique.size(), names.size());
}

TEST(Pipeline, UnknownExcludedNameSuggestsTheClosest) {
  Config c;
  std::vector<std::string> names = optimizer_names();
  if (!names.empty()) {
    std::string typo = names[0] + "x";
    c.optimizer_excluding = typo;
    auto e = test::catch_error<ConfigError>([&] { make_pass_context(c); });
    EXPECT_THAT(e.what(), HasSubstr("'" + typo + "'"));
    EXPECT_THAT(e.what(), HasSubstr("did you mean '" + names[0] + "'"));
    c.optimizer_excluding = names[0] + "::" + names.back();
    PassContext ctx = make_pass_context(c);
    EXPECT_FALSE(ctx.enabled(names[0]));
    EXPECT_FALSE(ctx.enabled(names.back()));
  }
  c.optimizer_excluding = "no_such_rewrite";
  EXPECT_THROW(make_pass_context(c), ConfigError);
}

TEST(Pipeline, VerifyGraphNamesThePassThatBrokeTypes) {
  auto x = Variable::input(Type::unknown(DType::Float64, 1), "x");
  auto y = apply1(std::make_shared<testing::AddConst>(1.0), {x});
  Graph g = Graph::clone_of({x}, {y});
  EXPECT_NO_THROW(verify_graph(g, "ok_pass"));
  // Rewire the node to a float32 input behind the editor's back: its type rule now fails.
  auto f = Variable::input(Type::unknown(DType::Float32, 1), "f");
  g.toposort()[0]->set_input(0, f);
  auto e = test::catch_error<InternalError>([&] { verify_graph(g, "bad_pass"); });
  EXPECT_THAT(e.what(), HasSubstr("bad_pass"));
}

}  // namespace
}  // namespace tgc
