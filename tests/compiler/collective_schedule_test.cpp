// issue_collectives_early() (compiler/collective_schedule.h) and the schedule the linker runs:
// a data-parallel-shaped graph whose gradients are all_reduced before their updates, each
// collective issued as soon as its input exists and its reader left for last; graphs without
// collectives, or with an IfElse, keep their order.
#include "compiler/collective_schedule.h"

#include <gtest/gtest.h>

#include "compiler/update_in_place.h"
#include "ops/collective/all_reduce.h"
#include "ops/control/ifelse.h"
#include "ops/core/apply.h"
#include "runtime/comm/world.h"
#include "support/test_ops.h"

namespace tgc {
namespace {

using testing::add_const;

VarPtr all_reduced(const VarPtr& x, const std::shared_ptr<CommGroup>& group, const std::string& name) {
  VarPtr v = apply1(std::make_shared<AllReduce>(CollectiveOpKind::Sum, group), {x});
  v->set_name(name);
  return v;
}

VarPtr input(const std::string& name) { return Variable::input(Type::unknown(DType::Float64, 1), name); }

std::string names(const std::vector<Node*>& order) {
  std::string s;
  for (const Node* n : order) s += (s.empty() ? "" : " ") + n->output_raw(0)->name();
  return s;
}

// Two layers' gradients: g1 needs a chain (h1, the next gradient's product), g2 is at hand.
// The outputs list u1's update first, so the toposort walks g1's chain, its all_reduce and
// its update before it even computes g2.
struct TwoGradients {
  std::shared_ptr<CommGroup> group = std::make_shared<CommGroup>(0, 2, "test");
  VarPtr x = input("x");
  Graph graph() const {
    VarPtr h1 = add_const(x, 1, "h1"), g1 = add_const(h1, 2, "g1"), g2 = add_const(x, 3, "g2");
    VarPtr u1 = add_const(all_reduced(g1, group, "r1"), 4, "u1");
    VarPtr u2 = add_const(all_reduced(g2, group, "r2"), 5, "u2");
    return Graph::clone_of({x}, {u1, u2});
  }
};

TEST(CollectiveSchedule, IssuesEachCollectiveBeforeIndependentWorkAndItsReadersLast) {
  const Graph g = TwoGradients().graph();
  EXPECT_EQ(names(g.toposort()), "h1 g1 r1 u1 g2 r2 u2");
  // g2 feeds a collective: first; its all_reduce at once; then the chain to g1 and its
  // all_reduce; the readers of both results last, in the order of their collectives.
  EXPECT_EQ(names(issue_collectives_early(g.toposort())), "g2 r2 h1 g1 r1 u2 u1");
  // The linker's schedule (and the inplace pass's) is this order.
  EXPECT_EQ(names(schedule(g)), "g2 r2 h1 g1 r1 u2 u1");
}

TEST(CollectiveSchedule, AGradientScaledBeforeItsAllReduceStillComesBeforeTheNextLayer) {
  auto group = std::make_shared<CommGroup>(0, 2, "test");
  VarPtr x = input("x");
  // g1 is two nodes from its all_reduce, h1 three; g2 one node (a scale) away from its own.
  VarPtr h1 = add_const(x, 1, "h1"), g1 = add_const(h1, 2, "g1"), s1 = add_const(g1, 3, "s1");
  VarPtr g2 = add_const(x, 4, "g2"), s2 = add_const(g2, 5, "s2");
  VarPtr u1 = add_const(all_reduced(s1, group, "r1"), 6, "u1");
  VarPtr u2 = add_const(all_reduced(s2, group, "r2"), 7, "u2");
  const Graph g = Graph::clone_of({x}, {u1, u2});
  EXPECT_EQ(names(g.toposort()), "h1 g1 s1 r1 u1 g2 s2 r2 u2");
  EXPECT_EQ(names(issue_collectives_early(g.toposort())), "g2 s2 r2 h1 g1 s1 r1 u2 u1");
}

TEST(CollectiveSchedule, LeavesGraphsWithoutCollectivesAlone) {
  VarPtr x = input("x");
  VarPtr a = add_const(x, 1, "a"), b = add_const(a, 2, "b"), c = add_const(x, 3, "c");
  const Graph g = Graph::clone_of({x}, {b, c});
  EXPECT_EQ(names(issue_collectives_early(g.toposort())), "a b c");
}

TEST(CollectiveSchedule, LeavesGraphsWithAnIfElseInTheirGuardOrder) {
  auto group = std::make_shared<CommGroup>(0, 2, "test");
  VarPtr x = input("x"), c = Variable::input(Type::unknown(DType::Float64, 0), "c");
  VarPtr a = add_const(x, 1, "a"), g = add_const(x, 2, "g");
  VarPtr y = make_ifelse(c, {a}, {x})[0];
  VarPtr r = all_reduced(g, group, "r");
  const Graph graph = Graph::clone_of({x, c}, {y, r});
  const std::vector<Node*> order = graph.toposort();
  EXPECT_EQ(issue_collectives_early(order), order);
}

}  // namespace
}  // namespace tgc
