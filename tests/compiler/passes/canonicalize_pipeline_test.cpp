// The canonicalize phase inside function(): its passes run in the table's order (merge,
// constant_fold, canonicalize, remerge), optimizer_excluding leaves out exactly the named
// rule or pass, and compiled results match the unoptimized function's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "canon_test_util.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using test::op_names;

// fast_compile: the canonicalize phase without fusion, whose kernels would hide the nodes
// these tests look at.
FunctionOptions excluding(const std::string& names) {
  return FunctionOptions{.config = {{"optimizer", "fast_compile"}, {"optimizer_excluding", names}}};
}

TEST(CanonicalizePipeline, ThePhaseRunsInTheTablesOrder) {
  std::vector<std::string> names;
  for (const PassInfo& p : pipeline("fast_run"))
    if (p.phase == "canonicalize") names.emplace_back(p.name);
  EXPECT_THAT(names, ElementsAre("merge", "constant_fold", "canonicalize", "remerge"));
}

TEST(CanonicalizePipeline, ExcludingOneRuleDisablesExactlyThatRule) {
  Var x = matrix("x");
  Var y = x * 1 + 0;
  EXPECT_THAT(op_names(function({x}, {y}, {}, excluding("")).graph()), IsEmpty());
  Function f = function({x}, {y}, {}, excluding("mul_by_one"));
  EXPECT_THAT(op_names(f.graph()), ElementsAre("Elemwise{mul}"));
  Function g = function({x}, {y}, {}, excluding("add_zero"));
  EXPECT_THAT(op_names(g.graph()), ElementsAre("Elemwise{add}"));
}

TEST(CanonicalizePipeline, ExcludingAPassSkipsIt) {
  Var x = matrix("x");
  Var y = exp(x) + exp(x);
  EXPECT_THAT(op_names(function({x}, {y}, {}, excluding("")).graph()), ElementsAre("Elemwise{exp}", "Elemwise{add}"));
  EXPECT_THAT(op_names(function({x}, {y}, {}, excluding("merge:remerge:merge_stabilized")).graph()),
              ElementsAre("Elemwise{exp}", "Elemwise{exp}", "Elemwise{add}"));
  Var z = x * constant(Tensor::from_vector<float>({1, 2}, {1, 2})).sum();
  EXPECT_THAT(op_names(function({x}, {z}, {}, excluding("")).graph()), ElementsAre("Elemwise{mul}"));
  // canonicalize's fold_constants rule folds within the fixed point too: both go.
  EXPECT_THAT(op_names(function({x}, {z}, {}, excluding("constant_fold")).graph()), ElementsAre("Elemwise{mul}"));
  EXPECT_THAT(op_names(function({x}, {z}, {}, excluding("constant_fold:fold_constants")).graph()),
              ElementsAre("Sum", "Elemwise{mul}"));
}

TEST(CanonicalizePipeline, RemergeJoinsWhatCanonicalizeMadeEqual) {
  Var x = matrix("x");
  // exp(x * 1) becomes exp(x), a duplicate of the other exp(x).
  Function f = function({x}, {exp(x * 1) + exp(x)}, {}, excluding(""));
  EXPECT_THAT(op_names(f.graph()), ElementsAre("Elemwise{exp}", "Elemwise{add}"));
  Function g = function({x}, {exp(x * 1) + exp(x)}, {}, excluding("remerge:merge_stabilized"));
  EXPECT_THAT(op_names(g.graph()), ElementsAre("Elemwise{exp}", "Elemwise{exp}", "Elemwise{add}"));
}

TEST(CanonicalizePipeline, RecanonicalizeFoldsWhatFloat32Narrowed) {
  // 0.5 * (2.0 * x) with float64 constants and a float32 x: float64 products of a float32
  // operand, no chain the exact rules fold; float32 casting narrows the constants, and the
  // float32 chain then folds to x (cast back to the float64 the function promises).
  Var x = vector("x", DType::Float32);
  Var y = constant(0.5, DType::Float64) * (constant(2.0, DType::Float64) * x);
  EXPECT_THAT(op_names(function({x}, {y}, {}, excluding("")).graph()), ElementsAre("Elemwise{Cast{float64}}"));
  EXPECT_THAT(op_names(function({x}, {y}, {}, excluding("recanonicalize")).graph()),
              ElementsAre("Elemwise{mul}", "Elemwise{mul}", "Elemwise{Cast{float64}}"));
}

TEST(CanonicalizePipeline, AGradientGraphComputesWhatTheUnoptimizedOneDoes) {
  Var x = tensor("x", DType::Float32, {3, 4});
  Var b = vector("b");
  Var cost = (sqr(x * 1 + b) - exp(log(x))).mean() + pow(b, 2).sum();
  std::vector<Var> g = grad(cost, {x, b});
  Function opt = function({x, b}, {cost, g[0], g[1]}, {}, excluding(""));
  Function ref = function({x, b}, {cost, g[0], g[1]}, {}, FunctionOptions{.config = {{"optimizer", "none"}}});
  EXPECT_LT(opt.graph().toposort().size(), ref.graph().toposort().size());
  RandomState rng(7);
  Tensor xv = rng.uniform(0.5, 2, {3, 4}).astype(DType::Float32);
  Tensor bv = rng.uniform(0.5, 2, {4}).astype(DType::Float32);
  std::vector<Tensor> got = opt(xv, bv), want = ref(xv, bv);
  for (size_t i = 0; i < want.size(); ++i) test::expect_same(got[i], want[i], 1e-5, 1e-6);
}

}  // namespace
}  // namespace tgc
