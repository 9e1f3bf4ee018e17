// rewrite_to_fixed_point: rules apply until none does, new nodes and readers are revisited,
// excluded rules are skipped, the trace records each replacement, and rules that undo each
// other are stopped with an internal error instead of looping.
#include "compiler/passes/local_rewrite.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ops/core/apply.h"
#include "support/test_ops.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using testing::AddConst;

using testing::add_const;

double constant_of(const Node& n) { return static_cast<const AddConst&>(n.op()).value(); }

// AddConst(AddConst(x, a), b) -> AddConst(x, a + b)
std::vector<VarPtr> merge_adds(Node& node, const RewriteEnv&) {
  Node* inner = node.inputs()[0]->owner();
  if (!inner || inner->op().op_class() != "AddConst") return {};
  return {add_const(inner->inputs()[0], constant_of(*inner) + constant_of(node))};
}
// AddConst(x, 0) -> x
std::vector<VarPtr> drop_zero(Node& node, const RewriteEnv&) {
  if (constant_of(node) != 0) return {};
  return {node.inputs()[0]};
}
// AddConst(x, c) -> AddConst(AddConst(x, c - 1), 1): undoes merge_adds forever
std::vector<VarPtr> split_add(Node& node, const RewriteEnv&) {
  return {add_const(add_const(node.inputs()[0], constant_of(node) - 1), 1)};
}

const LocalRewrite kMerge{"merge_adds", "(x + a) + b -> x + (a + b)", merge_adds};
const LocalRewrite kDropZero{"drop_zero", "x + 0 -> x", drop_zero};
const LocalRewrite kSplit{"split_add", "x + c -> (x + (c - 1)) + 1", split_add};

Graph chain(const std::vector<double>& constants) {
  auto x = Variable::input(Type::unknown(DType::Float64, 1), "x");
  VarPtr v = x;
  for (double c : constants) v = add_const(v, c);
  return Graph::clone_of({x}, {v});
}

TEST(Rewriter, ReachesAFixedPointThroughNewNodes) {
  Graph g = chain({1, 2, -3, 4});
  PassContext ctx;
  const LocalRewrite rules[] = {kMerge, kDropZero};
  EXPECT_TRUE(rewrite_to_fixed_point(g, rules, "test", ctx));
  auto order = g.toposort();
  ASSERT_EQ(order.size(), 1u);
  EXPECT_EQ(constant_of(*order[0]), 4);
  EXPECT_EQ(order[0]->inputs()[0].get(), g.inputs()[0].get());
  EXPECT_FALSE(rewrite_to_fixed_point(g, rules, "test", ctx));
}

TEST(Rewriter, ARuleThatRemovesEverythingLeavesTheInput) {
  Graph g = chain({1, -1});
  PassContext ctx;
  const LocalRewrite rules[] = {kMerge, kDropZero};
  rewrite_to_fixed_point(g, rules, "test", ctx);
  EXPECT_TRUE(g.toposort().empty());
  EXPECT_EQ(g.outputs()[0].get(), g.inputs()[0].get());
}

TEST(Rewriter, ExcludedRulesAreSkipped) {
  Graph g = chain({1, 2});
  PassContext ctx;
  ctx.excluded.insert("merge_adds");
  const LocalRewrite rules[] = {kMerge, kDropZero};
  EXPECT_FALSE(rewrite_to_fixed_point(g, rules, "test", ctx));
  EXPECT_EQ(g.toposort().size(), 2u);
}

TEST(Rewriter, TraceRecordsEachReplacement) {
  Graph g = chain({1, 2, -3});
  std::vector<RewriteEvent> trace;
  PassContext ctx;
  ctx.trace = &trace;
  const LocalRewrite rules[] = {kMerge, kDropZero};
  rewrite_to_fixed_point(g, rules, "canon", ctx);
  ASSERT_GE(trace.size(), 3u);
  EXPECT_EQ(trace[0].pass, "canon");
  EXPECT_EQ(trace[0].rewrite, "merge_adds");
  EXPECT_EQ(trace.back().rewrite, "drop_zero");
  EXPECT_THAT(trace[0].after, HasSubstr("AddConst"));
}

TEST(Rewriter, RulesUndoingEachOtherStopWithAnInternalError) {
  Graph g = chain({5});
  PassContext ctx;
  const LocalRewrite rules[] = {kMerge, kSplit};
  try {
    rewrite_to_fixed_point(g, rules, "loop", ctx);
    FAIL() << "expected an internal error";
  } catch (const InternalError& e) {
    EXPECT_THAT(e.what(), HasSubstr("fixed point"));
    EXPECT_THAT(e.what(), HasSubstr("loop"));
  }
}

TEST(Rewriter, LongChainsRewriteInLinearWork) {
  // 20000 nodes collapse into one; a quadratic engine would take minutes here.
  Graph g = chain(std::vector<double>(20000, 1.0));
  PassContext ctx;
  const LocalRewrite rules[] = {kMerge};
  rewrite_to_fixed_point(g, rules, "test", ctx);
  auto order = g.toposort();
  ASSERT_EQ(order.size(), 1u);
  EXPECT_EQ(constant_of(*order[0]), 20000);
}

}  // namespace
}  // namespace tgc
