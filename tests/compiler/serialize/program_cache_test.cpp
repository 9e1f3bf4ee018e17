// The optimized-program cache (compiler/serialize/program_cache.h): a function compiled again
// links the graph the first compile's optimizer made, computing the same results; any change to
// what the optimizer depends on (a constant, a deciding config key, a shared shape) misses; a
// graph with an op that has no codec is optimized every time.
#include "compiler/serialize/program_cache.h"

#include <tgc/tgc.h>

#include <gtest/gtest.h>

#include <unistd.h>

#include "ops/core/apply.h"
#include "runtime/compile_log.h"
#include "support/test_ops.h"

namespace tgc {
namespace {

// A cache directory of this test's own, new in each process: what one test stored is not
// found by another, nor by a later run.
std::map<std::string, std::string> options(std::map<std::string, std::string> more = {}) {
  more["cache_dir"] = ::testing::TempDir() + "/tgc_program_cache_test_" + std::to_string(::getpid()) + "_" +
                      ::testing::UnitTest::GetInstance()->current_test_info()->name();
  return more;
}

struct Net {
  Shared w = shared(Tensor::from_vector(std::vector<float>{0.5f, -1.0f, 2.0f}), "w");
  Var x = vector("x");
  Function make(double c, std::map<std::string, std::string> config = {}) {
    return function({x}, {sum(exp(x * w) + c), softmax(x)}, {{w, w * 0.5f}}, {.config = options(std::move(config))});
  }
};

TEST(ProgramCache, ASecondCompileLinksTheCachedGraph) {
  Net n;
  Function first = n.make(1.25);
  Function second = n.make(1.25);
  EXPECT_TRUE(second.compile_phases().program_from_cache);
  EXPECT_TRUE(second.optimizer_timings().empty());
  EXPECT_EQ(second.graph().str(), first.graph().str());
  const Tensor x = Tensor::from_vector(std::vector<float>{1, 2, 3});
  const std::vector<Tensor> a = first(x);
  n.w.set_value(Tensor::from_vector(std::vector<float>{0.5f, -1.0f, 2.0f}));
  const std::vector<Tensor> b = second(x);
  EXPECT_EQ(a[0].to_vector<float>(), b[0].to_vector<float>());
  EXPECT_EQ(a[1].to_vector<float>(), b[1].to_vector<float>());
}

TEST(ProgramCache, WhatTheOptimizerDependsOnMisses) {
  Net n;
  n.make(2.5);
  EXPECT_FALSE(n.make(3.5).compile_phases().program_from_cache);                          // another constant
  EXPECT_FALSE(n.make(2.5, {{"fast_math", "true"}}).compile_phases().program_from_cache);  // a deciding key
  EXPECT_TRUE(n.make(2.5, {{"profile", "false"}}).compile_phases().program_from_cache);    // the process's key
  n.w.set_value(Tensor::from_vector(std::vector<float>{1, 2, 3, 4}));                      // another shape fact
  EXPECT_FALSE(n.make(2.5).compile_phases().program_from_cache);
  EXPECT_FALSE(n.make(2.5, {{"optimizer", "none"}}).compile_phases().program_from_cache);  // nothing to cache
}

TEST(ProgramCache, AnOutputThatUpdatesAVariableIsNotAResult) {
  // The same graph as built, once with two results and once with its second output the update
  // of a variable it does not read: the passes treat the two apart, so the second misses.
  Var x = vector("x");
  Shared v = shared(Tensor::from_vector(std::vector<float>{0, 0}), "v");
  Function results = function({x}, {exp(x), x * 2}, {}, {.config = options()});
  Function update = function({x}, {exp(x)}, {{v, x * 2}}, {.config = options()});
  EXPECT_FALSE(update.compile_phases().program_from_cache);
  update(Tensor::from_vector(std::vector<float>{1, 2}));
  EXPECT_EQ(v.get_value().to_vector<float>(), (std::vector<float>{2, 4}));
  EXPECT_TRUE(function({x}, {exp(x)}, {{v, x * 2}}, {.config = options()}).compile_phases().program_from_cache);
}

TEST(ProgramCache, AGraphWithAnOpWithoutACodecIsOptimizedEveryTime) {
  Var x = vector("x", DType::Float64);
  Var y = Var(apply1(std::make_shared<testing::AddConst>(1.0), {x.ptr()})) * 2.0;
  Function f = function({x}, {y}, {}, {.config = options()});
  Function g = function({x}, {y}, {}, {.config = options()});
  EXPECT_FALSE(g.compile_phases().program_from_cache);
  EXPECT_EQ(g(Tensor::from_vector(std::vector<double>{1}))[0].to_vector<double>(), std::vector<double>{4});
}

}  // namespace
}  // namespace tgc
