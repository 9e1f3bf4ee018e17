// Graph cloning, ordering, clients and replacement; apply()'s error context.
#include "ops/core/graph.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ops/core/apply.h"
#include "support/test_ops.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using testing::AddConst;

using testing::add_const;

TEST(Graph, CloneCopiesNodesAndKeepsSharedStorage) {
  auto x = Variable::input(Type::unknown(DType::Float64, 1), "x");
  auto w = Variable::shared(std::make_shared<SharedValue>(
      Tensor::from_vector(std::vector<double>{1, 2}), "w", false));
  auto y = add_const(add_const(x, 1), 2);
  y->set_name("y");
  Graph g = Graph::clone_of({x}, {y, w});
  ASSERT_EQ(g.inputs().size(), 1u);
  EXPECT_NE(g.inputs()[0].get(), x.get());
  EXPECT_NE(g.outputs()[0].get(), y.get());
  EXPECT_EQ(g.outputs()[0]->name(), "y");
  EXPECT_EQ(g.outputs()[1].get(), w.get());  // shared variables are not copied
  EXPECT_EQ(g.toposort().size(), 2u);
}

TEST(Graph, MissingInputIsANamedError) {
  auto x = Variable::input(Type::unknown(DType::Float64, 1), "x");
  auto z = Variable::input(Type::unknown(DType::Float64, 1), "z");
  auto y = add_const(z, 1);
  y->set_name("p_1");
  try {
    Graph::clone_of({x}, {y});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("output 'p_1' depends on input 'z'"));
    EXPECT_THAT(e.what(), HasSubstr("add 'z' to the inputs"));
  }
}

TEST(Graph, SharedVariableAsInputIsRejected) {
  auto w = Variable::shared(std::make_shared<SharedValue>(Tensor::scalar(1.0), "w", false));
  EXPECT_THROW(Graph::clone_of({w}, {w}), InputError);
}

TEST(Graph, ToposortPutsProducersFirstAndSharesCommonNodes) {
  auto x = Variable::input(Type::unknown(DType::Float64, 1), "x");
  auto a = add_const(x, 1);
  auto b = add_const(a, 2);
  auto c = add_const(a, 3);
  Graph g = Graph::clone_of({x}, {b, c});
  auto order = g.toposort();
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0]->op().name(), AddConst(1).name());
  auto clients = g.clients();
  EXPECT_EQ(clients[order[0]->output_raw(0)].size(), 2u);
}

TEST(Graph, ReplaceRewiresReadersAndOutputs) {
  auto x = Variable::input(Type::unknown(DType::Float64, 1), "x");
  Graph g = Graph::clone_of({x}, {add_const(add_const(x, 1), 2)});
  Node* first = g.toposort()[0];
  g.replace(first->output_raw(0), g.inputs()[0]);
  EXPECT_EQ(g.toposort().size(), 1u);
  EXPECT_EQ(g.toposort()[0]->inputs()[0].get(), g.inputs()[0].get());
}

TEST(Graph, ReplaceWithAnotherTypeIsAnInternalError) {
  auto x = Variable::input(Type::unknown(DType::Float64, 1), "x");
  auto m = Variable::input(Type::unknown(DType::Float64, 2), "m");
  Graph g = Graph::clone_of({x}, {add_const(x, 1)});
  EXPECT_THROW(g.replace(g.outputs()[0].get(), m), InternalError);
}

TEST(Apply, TypeErrorsNameTheCallInUserTerms) {
  auto x = Variable::input(Type::unknown(DType::Float32, 1), "x");
  try {
    add_const(x, 1);
    FAIL();
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("expected one float64 input in add_const(x)"));
  }
}

TEST(Node, DescribeUsesTheUsersNames) {
  auto x = Variable::input(Type::unknown(DType::Float64, 1), "x");
  auto y = add_const(x, 1);
  EXPECT_EQ(y->owner()->describe(), "add_const(x)");
  y->set_name("p_1");
  EXPECT_EQ(y->owner()->describe(), "p_1 = add_const(x)");
  auto z = add_const(add_const(y, 1), 2);
  EXPECT_EQ(z->label(), "add_const(add_const(...))");
}

TEST(Graph, DeepChainsDoNotOverflowTheStack) {
  auto x = Variable::input(Type::unknown(DType::Float64, 1), "x");
  VarPtr y = x;
  for (int i = 0; i < 50000; ++i) y = add_const(y, 1);
  Graph g = Graph::clone_of({x}, {y});
  EXPECT_EQ(g.toposort().size(), 50000u);
}

}  // namespace
}  // namespace tgc
