// GraphEditor: the reader index follows replacements, new nodes are indexed, dead nodes are
// pruned (and revived when a replacement brings them back), type and cycle checks.
#include "compiler/passes/graph_editor.h"

#include <gtest/gtest.h>

#include "ops/core/apply.h"
#include "support/test_ops.h"

namespace tgc {
namespace {

using testing::add_const;

struct Chain {
  VarPtr x = Variable::input(Type::unknown(DType::Float64, 1), "x");
  Graph g;
  Chain() {
    auto a = add_const(x, 1);
    auto b = add_const(a, 2);
    auto c = add_const(b, 3);
    g = Graph::clone_of({x}, {c, b});
  }
};

TEST(GraphEditor, IndexesReadersAndOutputs) {
  Chain t;
  GraphEditor e(t.g);
  auto order = e.toposort();
  ASSERT_EQ(order.size(), 3u);
  Variable* a = order[0]->output_raw(0);
  Variable* b = order[1]->output_raw(0);
  EXPECT_EQ(e.clients(a).size(), 1u);
  EXPECT_EQ(e.clients(b).size(), 1u);
  EXPECT_TRUE(e.is_output(b));
  EXPECT_EQ(e.num_uses(b), 2);
  EXPECT_EQ(e.num_uses(order[2]->output_raw(0)), 1);
}

TEST(GraphEditor, ReplaceRewiresReadersAndOutputsAndPrunesTheDeadChain) {
  Chain t;
  GraphEditor e(t.g);
  auto order = e.toposort();
  Node* first = order[0];
  Node* second = order[1];
  // Replace b (= x+1+2) by x+3: the nodes computing a and b die.
  VarPtr x = t.g.inputs()[0];
  VarPtr x3 = add_const(x, 3);
  auto fresh = e.replace(second->output_raw(0), x3);
  ASSERT_EQ(fresh.size(), 1u);
  EXPECT_EQ(fresh[0], x3->owner());
  EXPECT_FALSE(e.alive(first));
  EXPECT_FALSE(e.alive(second));
  EXPECT_TRUE(e.alive(x3->owner()));
  EXPECT_EQ(t.g.outputs()[1].get(), x3.get());
  EXPECT_EQ(order[2]->inputs()[0].get(), x3.get());
  EXPECT_EQ(e.num_uses(x3.get()), 2);
  // x is read by the new node only: the dead first node no longer counts as a reader.
  EXPECT_EQ(e.clients(x.get()).size(), 1u);
  EXPECT_EQ(t.g.toposort().size(), 2u);
}

TEST(GraphEditor, ReplacementMayReviveADeadNode) {
  Chain t;
  GraphEditor e(t.g);
  auto order = e.toposort();
  VarPtr a = order[0]->output(0);
  VarPtr b = order[1]->output(0);
  VarPtr x = t.g.inputs()[0];
  // b -> x+3 kills a's node; then c's input replaced by a+... revives it.
  e.replace(b.get(), add_const(x, 3));
  EXPECT_FALSE(e.alive(a->owner()));
  VarPtr a2 = add_const(a, 2);
  e.replace(order[2]->inputs()[0].get(), a2);
  EXPECT_TRUE(e.alive(a->owner()));
  EXPECT_EQ(e.clients(a.get()).size(), 1u);
  // Every use of x+3 (c's input and the second output) now reads a+2: x+3 died, and x is
  // read by the revived node only.
  EXPECT_EQ(e.clients(x.get()).size(), 1u);
  EXPECT_EQ(t.g.outputs()[1].get(), a2.get());
}

TEST(GraphEditor, RejectsTypeChangesAndCycles) {
  Chain t;
  GraphEditor e(t.g);
  auto order = e.toposort();
  auto other = Variable::input(Type::unknown(DType::Float32, 1), "f");
  EXPECT_THROW(e.replace(order[0]->output_raw(0), other), InternalError);
  VarPtr a = order[0]->output(0);
  EXPECT_THROW(e.replace(a.get(), add_const(a, 1)), InternalError);
}

TEST(GraphEditor, AcceptsAReplacementThatKnowsMoreOfTheShape) {
  auto x = Variable::input(Type(DType::Float64, {3}), "x");
  auto y = Variable::input(Type::unknown(DType::Float64, 1), "y");
  Graph g = Graph::clone_of({x, y}, {add_const(y, 1)});
  GraphEditor e(g);
  EXPECT_NO_THROW(e.replace(g.outputs()[0].get(), g.inputs()[0]));
  EXPECT_EQ(g.outputs()[0].get(), g.inputs()[0].get());
}

}  // namespace
}  // namespace tgc
