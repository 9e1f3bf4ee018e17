// fuse_elemwise and its group search: multi-output siblings, chains, reductions with prologue
// and epilogue, broadcasting, convexity, splitting at the limits, and the logistic-regression
// graph with its gradients; every case also checked by value against the unfused graph.
#include "compiler/passes/fuse_elemwise.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "canon_test_util.h"
#include "compiler/kernel/composite_op.h"
#include "compiler/passes/fusion_groups.h"
#include "support/random_graph.h"

namespace tgc {
namespace {

using test::expect_same_results;
using test::op_names;

// The graph of `outputs` and its fusion groups.
struct Found {
  Graph graph;
  std::vector<FusedGroup> groups;
  std::string str() const {
    std::string s = graph.str() + "groups:\n";
    for (const FusedGroup& g : groups) {
      s += " ";
      for (Node* n : g.nodes) s += " " + n->op().name();
      s += "\n";
    }
    return s;
  }
};

Found find_groups(const std::vector<Var>& inputs, const std::vector<Var>& outputs, FusionLimits limits = {}) {
  Found f;
  f.graph = Graph::clone_of(to_ptrs(inputs), to_ptrs(outputs));
  f.groups = find_fusion_groups(f.graph, limits);
  return f;
}

test::PassRun fused(const std::vector<Var>& inputs, const std::vector<Var>& outputs) {
  return test::run_pass(fuse_elemwise, inputs, outputs);
}

int count_class(const Graph& g, const std::string& op_class) {
  int n = 0;
  for (Node* node : g.toposort()) n += node->op().op_class() == op_class;
  return n;
}

const Composite& only_composite(const Graph& g) {
  std::vector<Node*> nodes = g.toposort();
  EXPECT_EQ(nodes.size(), 1u) << g.str();
  auto* c = dynamic_cast<const Composite*>(&nodes.at(0)->op());
  if (!c) throw std::runtime_error("not a Composite: " + g.str());
  return *c;
}

// Checks what find_fusion_groups promises on any graph: every fusable node in exactly one
// group, nodes in topological order, each group convex, each group's inputs produced by
// earlier groups or by nodes that do not depend on it, outputs exactly the values read
// outside, and each group a valid kernel.
void expect_valid_groups(const Found& f) {
  std::vector<Node*> order = f.graph.toposort();
  std::unordered_map<const Node*, int> topo, group_of;
  for (size_t i = 0; i < order.size(); ++i) topo[order[i]] = static_cast<int>(i);
  for (size_t g = 0; g < f.groups.size(); ++g)
    for (Node* n : f.groups[g].nodes) {
      EXPECT_TRUE(group_of.emplace(n, static_cast<int>(g)).second) << n->describe() << " is in two groups\n" << f.str();
      EXPECT_NE(fusion_role(*n), FusionRole::None) << f.str();
    }
  for (Node* n : order)
    if (fusion_role(*n) != FusionRole::None) {
      EXPECT_TRUE(group_of.count(n)) << n->describe() << " is in no group\n" << f.str();
    }
  // Whether a path from `from` to `to` passes through a node outside their group.
  const auto clients = f.graph.clients();
  auto path_leaves_group = [&](Node* from, Node* to) {
    const int g = group_of.at(from);
    std::vector<std::pair<Node*, bool>> stack{{from, false}};  // (node, left the group on the way)
    std::set<std::pair<Node*, bool>> seen;
    while (!stack.empty()) {
      auto [n, left] = stack.back();
      stack.pop_back();
      for (int k = 0; k < n->num_outputs(); ++k) {
        auto it = clients.find(n->output_raw(k));
        if (it == clients.end()) continue;
        for (auto& [r, pos] : it->second) {
          if (r == to && left) return true;
          const bool l = left || !group_of.count(r) || group_of.at(r) != g;
          if (seen.insert({r, l}).second) stack.push_back({r, l});
        }
      }
    }
    return false;
  };
  for (size_t g = 0; g < f.groups.size(); ++g) {
    const FusedGroup& group = f.groups[g];
    for (size_t i = 1; i < group.nodes.size(); ++i)
      EXPECT_LT(topo[group.nodes[i - 1]], topo[group.nodes[i]]) << "group " << g << " not in topological order\n" << f.str();
    for (Node* a : group.nodes)
      for (Node* b : group.nodes)
        if (a != b) {
          EXPECT_FALSE(path_leaves_group(a, b)) << "group " << g << " is not convex: a path from " << a->describe()
                                            << " to " << b->describe() << " leaves it\n" << f.str();
        }
    for (const VarPtr& in : group.inputs) {
      Node* p = in->owner();
      if (p && group_of.count(p)) {
        EXPECT_LT(group_of.at(p), static_cast<int>(g)) << "group " << g << " reads a later group\n" << f.str();
      }
    }
    std::unordered_set<const Node*> members(group.nodes.begin(), group.nodes.end());
    std::set<const Variable*> expected_outputs, outputs;
    for (Node* n : group.nodes) {
      const Variable* o = n->output_raw(0);
      bool outside = std::count_if(f.graph.outputs().begin(), f.graph.outputs().end(),
                                   [&](const VarPtr& v) { return v.get() == o; }) > 0;
      if (auto it = clients.find(o); it != clients.end())
        for (auto& [r, pos] : it->second) outside = outside || !members.count(r);
      if (outside) expected_outputs.insert(o);
    }
    for (const VarPtr& o : group.outputs) outputs.insert(o.get());
    EXPECT_EQ(outputs, expected_outputs) << "group " << g << "\n" << f.str();
    // The Kernel IR's rules (one space per input, epilogues after the fold, ...).
    try {
      lower_group(group);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "group " << g << " does not lower: " << e.what() << "\n" << f.str();
    }
  }
}

TEST(FuseElemwise, TwoOutputsOfTheSameInputsBecomeOneNode) {
  Var x = matrix("x"), y = matrix("y");
  auto r = fused({x, y}, {x + y, x - y});
  EXPECT_TRUE(r.changed);
  const Composite& c = only_composite(r.after);
  EXPECT_EQ(c.name(), "Composite{add(i0,i1), sub(i0,i1)}");
  EXPECT_EQ(c.kernel().inputs.size(), 2u);
  Node* node = r.after.toposort()[0];
  EXPECT_EQ(r.after.outputs()[0]->owner(), node);
  EXPECT_EQ(r.after.outputs()[1]->owner(), node);
  expect_same_results(r);
}

TEST(FuseElemwise, SumOfSquaresReadsTheMatrixOnce) {
  Var x = matrix("x");
  auto r = fused({x}, {sum(x * x)});
  const Composite& c = only_composite(r.after);
  EXPECT_TRUE(c.kernel().is_reduction()) << c.kernel().str();
  EXPECT_EQ(c.kernel().inputs.size(), 1u) << c.kernel().str();
  expect_same_results(r, 1e-5);
}

TEST(FuseElemwise, AChainOfElementwiseOpsIsOneNode) {
  Var a = matrix("a"), b = matrix("b"), c = matrix("c");
  Var out = a * exp(-b) + c * tanh(a) - 0.5 * b * c;
  auto r = fused({a, b, c}, {out});
  const Composite& k = only_composite(r.after);
  EXPECT_EQ(k.kernel().inputs.size(), 3u) << k.kernel().str();
  expect_same_results(r);
}

TEST(FuseElemwise, AnEpilogueJoinsItsReduction) {
  Var x = matrix("x"), b = vector("b");
  Var out = sum(x, 1) / 4.0 + b;
  auto r = fused({x, b}, {out});
  const Composite& c = only_composite(r.after);
  EXPECT_TRUE(c.kernel().is_reduction());
  EXPECT_EQ(c.kernel().inputs.size(), 2u);
  EXPECT_TRUE(c.kernel().inputs[1].in_output_space) << c.kernel().str();
  expect_same_results(r, 1e-5);
}

TEST(FuseElemwise, PrologueReductionAndEpilogueAreOneKernel) {
  Var x = matrix("x"), b = vector("b");
  Var out = sqrt(mean(square(x - 1.0), 0) + b);
  auto r = fused({x, b}, {out});
  EXPECT_TRUE(only_composite(r.after).kernel().is_reduction());
  expect_same_results(r, 1e-5);
}

TEST(FuseElemwise, SiblingReductionsOverTheSameAxesShareAKernel) {
  Var x = matrix("x");
  Var variance = mean(x * x, 1) - square(mean(x, 1));
  auto r = fused({x}, {variance});
  const Composite& c = only_composite(r.after);
  EXPECT_EQ(c.kernel().inputs.size(), 1u) << c.kernel().str();
  expect_same_results(r, 1e-5);
}

TEST(FuseElemwise, ReductionsOverDifferentAxesAreDifferentKernels) {
  Var x = matrix("x");
  Var e = exp(x);
  auto r = fused({x}, {sum(e, 0), sum(e, 1)});
  EXPECT_EQ(count_class(r.after, "Composite"), r.after.toposort().size()) << r.after.str();
  // exp(x) is read by both reductions: it is computed once on its own.
  EXPECT_EQ(r.after.toposort().size(), 3u) << r.after.str();
  expect_same_results(r, 1e-5);
}

TEST(FuseElemwise, APrologueValueReadOutsideIsNotPartOfTheReductionKernel) {
  Var x = matrix("x");
  Var sq = x * x;
  Found f = find_groups({x}, {sum(sq), sq});
  expect_valid_groups(f);
  ASSERT_EQ(f.groups.size(), 2u) << f.str();
  EXPECT_EQ(f.groups[0].nodes.size(), 1u) << f.str();
  auto r = fused({x}, {sum(sq), sq});
  EXPECT_EQ(r.after.toposort().size(), 2u) << r.after.str();
  expect_same_results(r, 1e-5);
}

// A batch norm's backward sums: dy is written (another kernel reads it too), and dy * x, read
// only by a reduction, is computed in the reductions' kernel beside sum(dy) rather than in dy's
// group, where it would be written and read back.
TEST(FuseElemwise, AValueReadOnlyByReductionsJoinsThemNotItsProducersGroup) {
  Var a = matrix("a"), b = matrix("b"), x = matrix("x");
  Var dy = maximum(a + b, 0.0);
  auto r = fused({a, b, x}, {sum(dy, 0), sum(dy * x, 0), dy * 2.0});
  std::vector<Node*> nodes = r.after.toposort();
  ASSERT_EQ(nodes.size(), 2u) << r.after.str();
  for (Node* n : nodes) {
    const auto* c = dynamic_cast<const Composite*>(&n->op());
    ASSERT_NE(c, nullptr) << r.after.str();
    // The elementwise kernel writes dy and dy * 2; the reduction kernel reads dy and x and
    // writes both sums.
    EXPECT_EQ(n->num_outputs(), 2) << r.after.str();
    if (c->kernel().is_reduction()) EXPECT_EQ(c->kernel().inputs.size(), 2u) << c->kernel().str();
  }
  expect_same_results(r, 1e-5);
  expect_valid_groups(find_groups({a, b, x}, {sum(dy, 0), sum(dy * x, 0), dy * 2.0}));
}

TEST(FuseElemwise, ASmallerValueIsRecomputedInsideWhenNothingElseReadsIt) {
  Var x = matrix("x"), v = vector("v");
  auto r = fused({x, v}, {x * exp(v)});
  EXPECT_EQ(only_composite(r.after).kernel().inputs.size(), 2u);
  expect_same_results(r);

  // Also returned: exp(v) is computed on its own, in its own space.
  auto r2 = fused({x, v}, {x * exp(v), exp(v)});
  EXPECT_EQ(r2.after.toposort().size(), 2u) << r2.after.str();
  expect_same_results(r2);
}

TEST(FuseElemwise, BroadcastPatternsSeparateGroups) {
  Var x = matrix("x"), row = tensor("row", DType::Float32, {1, kUnknownDim});
  // exp(row) is a row, read by two matrix-shaped nodes: computed once in its own kernel.
  Found f = find_groups({x, row}, {x + exp(row), x * exp(row), exp(row) * 2.0});
  expect_valid_groups(f);
  EXPECT_EQ(f.groups.size(), 2u) << f.str();
}

TEST(FuseElemwise, APathThroughANonFusableNodeKeepsNodesApart) {
  Var x = matrix("x"), w = matrix("w");
  Var a = exp(x);
  Var out = a + dot(a, w);
  Found f = find_groups({x, w}, {out});
  expect_valid_groups(f);
  ASSERT_EQ(f.groups.size(), 2u) << f.str();
  auto r = fused({x, w}, {out});
  EXPECT_EQ(op_names(r.after).size(), 3u) << r.after.str();
  EXPECT_EQ(count_class(r.after, "Composite"), 2) << r.after.str();
  expect_same_results(r, 1e-5);
}

TEST(FuseElemwise, ANormalizationIsThreeKernelsWithoutACycle) {
  // e / sum(e): the prologue e = exp(x) feeds both the reduction and the subtraction after it,
  // which reads the reduction: no single kernel can hold both.
  Var x = matrix("x");
  Var e = exp(x);
  Var out = e / sum(e, 1, true);
  Found f = find_groups({x}, {out});
  expect_valid_groups(f);
  auto r = fused({x}, {out});
  EXPECT_EQ(count_class(r.after, "Composite"), static_cast<int>(r.after.toposort().size())) << r.after.str();
  expect_same_results(r, 1e-5);
}

// Found by the property test (seed 15711): a 0-d reduction's loop and output spaces are
// the same, so an epilogue node may read a prologue value of the same shape; it must not
// join when a candidate pulls that prologue value in through the reduction it feeds.
TEST(FuseElemwise, AnEpilogueNeverReadsAPrologueValuePulledInWithIt) {
  Var x = scalar("x", DType::Int64);
  Var t0 = minimum(x, x);
  Var t2 = max(prod(t0));
  Var t4 = arccos(eq(t2, t0));
  Var t7 = softplus(x);
  // The group grown from max(...) takes eq and arccos as its epilogue; the division pulls
  // logical_or in, which pulls prod(t7) in, which pulls t7 in as its prologue: logical_or
  // reads t7 directly too, so it cannot join.
  std::vector<Var> outs{sqrt(t4.dimshuffle({-1})), logical_or(prod(t7), t7) / t4, cast(t0, DType::Bool),
                        logical_and(t2, true)};
  Found f = find_groups({x}, outs);
  expect_valid_groups(f);
  auto r = fused({x}, outs);
  expect_same_results(r);
}

// Found by the random-graph check (seed 3131): a value computed from constants alone
// cannot be an epilogue value (the Kernel IR would count it before the fold).
TEST(FuseElemwise, AConstantOnlyValueIsNoEpilogue) {
  Var x = vector("x");
  Var c = exp(constant(2.0, DType::Float32));
  std::vector<Var> outs{sum(x) * c, exp(c)};
  Found f = find_groups({x}, outs);
  expect_valid_groups(f);
  expect_same_results(fused({x}, outs), 1e-5);
}

TEST(FuseElemwise, GroupsSplitAtTheInputLimit) {
  std::vector<Var> xs;
  Var total;
  for (int i = 0; i < 40; ++i) {
    xs.push_back(vector("x" + std::to_string(i)));
    total = i == 0 ? xs[0] : total + xs[i];
  }
  Found f = find_groups(xs, {total}, {.max_inputs = 8, .max_values = 256});
  expect_valid_groups(f);
  EXPECT_GE(f.groups.size(), 5u) << f.str();
  for (const FusedGroup& g : f.groups) EXPECT_LE(g.inputs.size(), 8u) << f.str();

  // The pass's own limit (32 inputs): two kernels.
  auto r = fused(xs, {total});
  EXPECT_EQ(count_class(r.after, "Composite"), 2) << r.after.str();
  for (Node* n : r.after.toposort()) EXPECT_LE(n->inputs().size(), 32u);
  expect_same_results(r, 1e-5);
}

TEST(FuseElemwise, GroupsSplitAtTheValueLimit) {
  Var x = vector("x");
  Var y = x;
  for (int i = 0; i < 60; ++i) y = exp(-y) * 0.5;
  Found f = find_groups({x}, {y}, {.max_inputs = 32, .max_values = 20});
  expect_valid_groups(f);
  EXPECT_GE(f.groups.size(), 6u) << f.str();
  auto r = fused({x}, {y});
  EXPECT_GE(count_class(r.after, "Composite"), 1);
  for (Node* n : r.after.toposort())
    EXPECT_LE(dynamic_cast<const Composite&>(n->op()).kernel().values.size(), 256u);
  expect_same_results(r);
}

TEST(FuseElemwise, LoneNodesBecomeKernelsToo) {
  Var x = matrix("x"), w = matrix("w");
  auto r = fused({x, w}, {dot(exp(x), w), sum(dot(x, w), 0)});
  EXPECT_EQ(count_class(r.after, "Composite"), 2) << r.after.str();
  EXPECT_EQ(count_class(r.after, "Dot"), 2) << r.after.str();
  expect_same_results(r, 1e-5);
}

TEST(FuseElemwise, MixedDtypesAndConstantsFuse) {
  Var i = vector("i", DType::Int32), f = vector("f", DType::Float64), m = vector("m", DType::Bool);
  Var out = where(m, cast(i, DType::Float64) * 2.5, f) + (i > 2);
  auto r = fused({i, f, m}, {out, any(m)});
  EXPECT_EQ(count_class(r.after, "Composite"), 2) << r.after.str();
  expect_same_results(r);
}

TEST(FuseElemwise, RunningTwiceChangesNothingMore) {
  Var x = matrix("x");
  auto r = fused({x}, {exp(x) + 1.0});
  EXPECT_TRUE(r.changed);
  EXPECT_FALSE(fuse_elemwise(r.after, {}));
  Var w = matrix("w");
  auto none = fused({x, w}, {dot(x, w)});
  EXPECT_FALSE(none.changed);
}

TEST(FuseElemwise, TheTraceNamesEachGroup) {
  Var x = matrix("x");
  std::vector<RewriteEvent> events;
  PassContext ctx;
  ctx.trace = &events;
  test::run_pass(fuse_elemwise, {x}, {exp(x) + 1.0}, ctx);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].before, "Elemwise{exp}; Elemwise{add}");
  EXPECT_THAT(events[0].after, ::testing::StartsWith("Composite{"));
}

// The tutorial's logistic regression with its gradient updates (tests/frontend/logreg_test.cpp),
// on 8 examples of 5 features; `static_shapes` gives x and y their sizes.
struct LogReg {
  Var x, y;
  std::vector<Var> outputs;  // prediction, xent, the new w, the new b
};

LogReg logreg_graph(bool static_shapes) {
  LogReg m;
  m.x = static_shapes ? tensor("x", DType::Float64, {8, 5}) : matrix("x", DType::Float64);
  m.y = static_shapes ? tensor("y", DType::Float64, {8}) : vector("y", DType::Float64);
  RandomState rng(7);
  Shared w = shared(rng.randn({5}), "w");
  Shared b = shared(Tensor::scalar<double>(0.0), "b");
  Var z = dot(m.x, w) + b;
  Var p_1 = 1 / (1 + exp(-z));
  Var xent = m.y * softplus(-z) + (1 - m.y) * softplus(z);
  Var cost = mean(xent) + 0.01 * sum(pow(w, 2));
  std::vector<Var> g = grad(cost, {w, b});
  m.outputs = {p_1 > 0.5, xent, w - 0.01 * g[0], b - 0.01 * g[1]};
  return m;
}

TEST(FuseElemwise, LogisticRegressionWithGradientsIsAHandfulOfKernels) {
  // The pass alone, on the graph as grad() built it: every elementwise node and reduction
  // ends up in a kernel, and the results do not change.
  for (bool static_shapes : {false, true}) {
    LogReg m = logreg_graph(static_shapes);
    auto r = fused({m.x, m.y}, m.outputs);
    for (Node* n : r.after.toposort())
      EXPECT_EQ(fusion_role(*n), FusionRole::None) << "left unfused: " << n->describe() << "\n" << r.after.str();
    EXPECT_LT(2 * count_class(r.after, "Composite"), count_class(r.before, "Elemwise")) << r.after.str();
    expect_same_results(r, 1e-9, static_shapes ? 3 : 5);
  }

  // The whole optimizer, as function() runs it: the shape bookkeeping of the gradients
  // (sum_to_like, fill) folds away where shapes are static, leaving a handful of kernels
  // around the two matrix-vector products.
  LogReg m = logreg_graph(true);
  Function f = function({m.x, m.y}, m.outputs);
  const Graph& opt = f.graph();
  const int composites = count_class(opt, "Composite");
  const int products = count_class(opt, "Dot") + count_class(opt, "Gemv");
  const int others = static_cast<int>(opt.toposort().size()) - composites - products;
  EXPECT_LE(composites, 5) << opt.str();
  EXPECT_EQ(products, 2) << opt.str();
  EXPECT_LE(others, 4) << opt.str();
  for (Node* n : opt.toposort())
    EXPECT_EQ(fusion_role(*n), FusionRole::None) << "left unfused: " << n->describe() << "\n" << opt.str();
}

// With unknown dims (x, y and the shared variables' dims open, as in examples/logreg.tg),
// shape equivalence removes the gradients' sum_to_like and fill nodes it can prove to be
// identities; what stays is the two sums back to p_1 through y * ... (y's length and x's rows
// are unrelated in the graph: one of them may be 1 at run time and broadcast).
TEST(FuseElemwise, LogisticRegressionWithUnknownDimsIsAHandfulOfKernels) {
  LogReg m = logreg_graph(false);
  Function f = function({m.x, m.y}, m.outputs);
  const Graph& opt = f.graph();
  const int composites = count_class(opt, "Composite");
  const int products = count_class(opt, "Dot") + count_class(opt, "Gemv");
  EXPECT_LE(composites, 6) << opt.str();
  EXPECT_EQ(products, 2) << opt.str();
  EXPECT_LE(count_class(opt, "SumToLike"), 2) << opt.str();
  EXPECT_EQ(count_class(opt, "Fill"), 0) << opt.str();
  EXPECT_LE(static_cast<int>(opt.toposort().size()), composites + products + 4) << opt.str();

  // Same results as the unoptimised function, also where y broadcasts against one row of x.
  LogReg plain = logreg_graph(false);
  Function ref = function({plain.x, plain.y}, plain.outputs, {}, {.config = {{"optimizer", "none"}}});
  RandomState rng(3);
  for (int64_t rows : {8, 1}) {
    Tensor xs = rng.randn({rows, 5}), ys = rng.uniform(0.0, 1.0, {8});
    std::vector<Tensor> got = f(xs, ys), want = ref(xs, ys);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_TRUE(test::same_values(got[i], want[i], 1e-9)) << "output " << i << " with " << rows << " rows";
  }
}

// A long alternation of fusable and non-fusable nodes: the search stays about linear (this
// graph has 10,000 nodes; a quadratic search would make the test suite noticeably slower).
TEST(FuseElemwise, LargeGraphsFuseQuickly) {
  Var x = matrix("x"), w = matrix("w");
  Var y = x;
  int nodes = 0;
  while (nodes < 10000) {
    y = tanh(y * 0.5 + 1.0) - exp(y) * x;  // 6 elementwise nodes: one kernel
    y = dot(y, w);
    nodes += 7;
  }
  Found f = find_groups({x, w}, {y});
  EXPECT_EQ(f.groups.size(), static_cast<size_t>(nodes / 7)) << "groups";
  for (const FusedGroup& g : f.groups) EXPECT_EQ(g.nodes.size(), 6u);
}

// Random graphs (tests/support/random_graph.h): the groups keep every promise above.
TEST(FuseElemwise, RandomGraphsGiveValidGroups) {
  for (uint64_t seed = 0; seed < 300; ++seed) {
    test::RandomGraph rg = test::random_graph(seed);
    Found f;
    f.graph = Graph::clone_of(to_ptrs(rg.inputs), to_ptrs(rg.outputs));
    f.groups = find_fusion_groups(f.graph, {.max_inputs = 3 + static_cast<int>(seed % 5), .max_values = 12 + static_cast<int>(seed % 30)});
    SCOPED_TRACE("seed " + std::to_string(seed));
    expect_valid_groups(f);
    if (::testing::Test::HasFailure()) break;
  }
}

}  // namespace
}  // namespace tgc
