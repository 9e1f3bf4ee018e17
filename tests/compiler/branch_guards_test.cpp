// Branch guards (compiler/branch_guards.h) and what the linker makes of them: guards of then,
// else, shared and nested work, the schedule that puts conditions first, Thunk::guard and
// Thunk::choice, and the buffer lifetimes of an IfElse's two values.
#include "compiler/branch_guards.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/reference/reference_backend.h"
#include "compiler/buffer_lifetimes.h"
#include "compiler/linker.h"
#include "compiler/update_in_place.h"
#include "ops/control/ifelse.h"
#include "ops/core/apply.h"
#include "support/test_ops.h"

namespace tgc {
namespace {

using testing::add_const;
VarPtr input(const std::string& name, int ndim = 1) { return Variable::input(Type::unknown(DType::Float64, ndim), name); }

const Node* node_named(const Graph& g, const std::string& name) {
  for (const Node* n : g.toposort())
    for (int k = 0; k < n->num_outputs(); ++k)
      if (n->output_raw(k)->name() == name) return n;
  ADD_FAILURE() << "no node makes " << name;
  return nullptr;
}

TEST(BranchGuards, ThenElseSharedAndConditionWork) {
  VarPtr x = input("x"), c0 = input("c0", 0);
  VarPtr c = add_const(c0, 1, "c");
  VarPtr shared = add_const(x, 1, "s");
  VarPtr a = add_const(shared, 2, "a"), b = add_const(shared, 3, "b");
  VarPtr y = make_ifelse(c, {a}, {b})[0];
  Graph g = Graph::clone_of({x, c0}, {y});
  BranchGuards guards(g);
  ASSERT_TRUE(guards.any());
  const Guard& ga = guards.guard(node_named(g, "a"));
  ASSERT_EQ(ga.size(), 1u);
  ASSERT_EQ(ga[0].size(), 1u);
  EXPECT_TRUE(ga[0][0].when);
  const Guard& gb = guards.guard(node_named(g, "b"));
  ASSERT_EQ(gb.size(), 1u);
  EXPECT_FALSE(gb[0][0].when);
  // Read by both branches: needed under "c" or "not c", two terms (not simplified to always:
  // the guard is only a test, and both terms are cheap).
  EXPECT_EQ(guards.guard(node_named(g, "s")).size(), 2u);
  EXPECT_TRUE(guards.guard(node_named(g, "c")).empty());  // the condition: always
  EXPECT_NE(guards.guard_class(node_named(g, "a")), guards.guard_class(node_named(g, "b")));
  EXPECT_EQ(guards.guard_class(node_named(g, "c")), 0);
}

TEST(BranchGuards, NestedIfElseGivesConjunctionsAndConditionsComeFirst) {
  VarPtr x = input("x"), c1 = input("c1", 0), k = input("k", 0);
  VarPtr c2 = add_const(k, -1, "c2");         // the inner condition
  VarPtr t = add_const(x, 1, "t"), e = add_const(x, 2, "e");
  VarPtr inner = make_ifelse(c2, {t}, {e})[0];
  VarPtr o = add_const(x, 3, "o");
  VarPtr y = make_ifelse(c1, {inner}, {o})[0];
  Graph g = Graph::clone_of({x, c1, k}, {y});
  BranchGuards guards(g);
  const Guard& gt = guards.guard(node_named(g, "t"));
  ASSERT_EQ(gt.size(), 1u);
  ASSERT_EQ(gt[0].size(), 2u);  // outer then, inner then: outermost first
  EXPECT_TRUE(gt[0][0].when);
  EXPECT_TRUE(gt[0][1].when);
  EXPECT_EQ(guards.guard(node_named(g, "c2")).size(), 1u);  // inside the outer then branch
  // The schedule computes c2 before t and e although the toposort may not.
  const std::vector<Node*> order = guards.order(g);
  auto pos = [&](const std::string& name) {
    return std::find(order.begin(), order.end(), node_named(g, name)) - order.begin();
  };
  EXPECT_LT(pos("c2"), pos("t"));
  EXPECT_LT(pos("c2"), pos("e"));
  EXPECT_EQ(order.size(), g.toposort().size());
  EXPECT_EQ(schedule(g), order);
}

TEST(BranchGuards, LinkerWritesGuardsWithConditionSlotsAndProducers) {
  VarPtr x = input("x"), c0 = input("c0", 0);
  VarPtr c = add_const(c0, 1, "c");
  VarPtr a = add_const(x, 2, "a"), b = add_const(x, 3, "b");
  VarPtr y = make_ifelse(c, {a}, {b})[0];
  Graph g = Graph::clone_of({x, c0}, {y});
  LinkedProgram lp = link(g, ReferenceBackend());
  const Program& p = lp.program;
  int cond_thunk = -1, then_thunk = -1, ifelse_thunk = -1;
  for (size_t i = 0; i < p.thunks.size(); ++i) {
    if (p.thunks[i].label.rfind("c = ", 0) == 0) cond_thunk = static_cast<int>(i);
    if (p.thunks[i].label.rfind("a = ", 0) == 0) then_thunk = static_cast<int>(i);
    if (p.thunks[i].op_class == "IfElse") ifelse_thunk = static_cast<int>(i);
  }
  ASSERT_GE(cond_thunk, 0);
  ASSERT_GE(then_thunk, 0);
  ASSERT_GE(ifelse_thunk, 0);
  EXPECT_TRUE(p.thunks[cond_thunk].guard.empty());
  ASSERT_EQ(p.thunks[then_thunk].guard.size(), 1u);
  const BranchTest test = p.thunks[then_thunk].guard[0][0];
  EXPECT_EQ(test.slot, p.thunks[cond_thunk].outputs[0]);
  EXPECT_EQ(test.producer, cond_thunk);
  EXPECT_TRUE(test.when);
  EXPECT_TRUE(p.thunks[ifelse_thunk].choice.has_value());
  EXPECT_FALSE(p.thunks[then_thunk].choice.has_value());
  // A bound condition has no producer: known from the start.
  Graph g2 = Graph::clone_of({x, c0}, {make_ifelse(c0, {a}, {b})[0]});
  LinkedProgram lp2 = link(g2, ReferenceBackend());
  for (const Thunk& t : lp2.program.thunks)
    for (const auto& term : t.guard)
      for (const BranchTest& bt : term) EXPECT_EQ(bt.producer, -1);
}

TEST(BranchGuards, BothValuesOfAnIfElseShareOneBufferGroupThatIsNobodysOwn) {
  VarPtr x = input("x"), c = input("c", 0);
  VarPtr a = add_const(x, 2, "a"), b = add_const(x, 3, "b");
  VarPtr y = make_ifelse(c, {a}, {b})[0];
  VarPtr z = add_const(y, 1, "z");
  Graph g = Graph::clone_of({x, c}, {z});
  const std::vector<Node*> order = schedule(g);
  BufferLifetimes life(g, order);
  const Variable* ga = node_named(g, "a")->output_raw(0);
  const Variable* gb = node_named(g, "b")->output_raw(0);
  EXPECT_EQ(life.root(ga), life.root(gb));
  EXPECT_FALSE(life.own(ga));
  EXPECT_FALSE(life.own(gb));
  // The group dies with the IfElse output's last reader (z), not at the IfElse.
  EXPECT_EQ(life.buffer_death(gb), static_cast<int>(order.size()) - 1);
}

TEST(BranchGuards, WithoutIfElseTheScheduleIsTheToposort) {
  VarPtr x = input("x");
  Graph g = Graph::clone_of({x}, {add_const(add_const(x, 1, "p"), 2, "q")});
  BranchGuards guards(g);
  EXPECT_FALSE(guards.any());
  EXPECT_EQ(guards.order(g), g.toposort());
}

}  // namespace
}  // namespace tgc
