// The rematerialize pass and fusion's place for its copies: a batch norm's centred value,
// read by the variance's reduction, the normalisation and a gradient-like product, is computed
// in each of those kernels and written by none; values that would cost more to recompute
// (several full-size operands, a bool from floats, a reader that is a library call, too many
// readers) keep one node; the results are the same.
#include "compiler/passes/rematerialize.h"

#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "canon_test_util.h"
#include "compiler/kernel/composite_op.h"
#include "compiler/passes/pipeline.h"

namespace tgc {
namespace {

constexpr DType f32 = DType::Float32;

int count_class(const Graph& g, const std::string& cls) {
  int n = 0;
  for (Node* node : g.toposort()) n += node->op().op_class() == cls;
  return n;
}

// Per-column statistics of x (rows x channels), as a batch norm over axis 0 computes them.
struct Centred {
  Var x = matrix("x", f32), m = vector("m", f32), s = vector("s", f32);
  Var c = x - m;
};

TEST(Rematerialize, EachFusableReaderGetsItsOwnCopy) {
  Centred b;
  const std::vector<Var> outs = {sum(square(b.c), Axes{0}), b.c * b.s, b.c * 2.0f};
  test::PassRun r = test::run_pass(rematerialize, {b.x, b.m, b.s}, outs);
  EXPECT_TRUE(r.changed);
  // One sub per reader (square, the two products).
  int subs = 0;
  for (Node* n : r.after.toposort()) subs += n->op().name() == "Elemwise{sub}";
  EXPECT_EQ(subs, 3) << r.after.str();
  test::expect_same_results(r, 0.0);
}

TEST(Rematerialize, FusionComputesTheCopiesInTheirReadersKernels) {
  Centred b;
  const std::vector<Var> outs = {sum(square(b.c), Axes{0}), b.c * b.s, b.c * 2.0f};
  Graph g = Graph::clone_of(to_ptrs(std::vector<Var>{b.x, b.m, b.s}), to_ptrs(outs));
  PassContext ctx = make_pass_context(global_config());
  ctx.config.optimizer = "fast_run";
  optimize(g, ctx);
  // Every kernel writes only what the function returns: c itself is never a kernel's output.
  for (Node* n : g.toposort()) {
    if (!dynamic_cast<const Composite*>(&n->op())) continue;
    for (int k = 0; k < n->num_outputs(); ++k) {
      bool returned = false;
      for (const VarPtr& o : g.outputs()) returned = returned || o.get() == n->output_raw(k);
      EXPECT_TRUE(returned) << "a kernel writes a value the function does not return\n" << g.str();
    }
  }
  // Without the pass, c is written once and read by the others.
  Graph h = Graph::clone_of(to_ptrs(std::vector<Var>{b.x, b.m, b.s}), to_ptrs(outs));
  ctx.excluded.insert("rematerialize");
  optimize(h, ctx);
  int written = 0;
  for (Node* n : h.toposort())
    for (int k = 0; k < n->num_outputs(); ++k) {
      bool returned = false;
      for (const VarPtr& o : h.outputs()) returned = returned || o.get() == n->output_raw(k);
      written += dynamic_cast<const Composite*>(&n->op()) && !returned;
    }
  EXPECT_GE(written, 1) << h.str();
}

TEST(Rematerialize, ValuesDearerToRecomputeKeepOneNode) {
  Var x = matrix("x", f32), y = matrix("y", f32), w = matrix("w", f32);
  Var two_full = x + y;           // two full-size operands: each reader would read both
  Var mask = x > 0.0f;            // a bool from floats: a quarter of the bytes to read back
  Var for_dot = x * 3.0f;         // a product's operand must be in memory anyway
  Var many = x - 1.0f;            // more readers than kMaxRematerializedReaders
  std::vector<Var> outs = {two_full * 2.0f, two_full * 3.0f, where(mask, x, y), where(mask, y, x), dot(for_dot, w),
                           for_dot * 2.0f};
  for (size_t k = 0; k <= kMaxRematerializedReaders; ++k) outs.push_back(many * static_cast<float>(k + 1));
  test::PassRun r = test::run_pass(rematerialize, {x, y, w}, outs);
  EXPECT_FALSE(r.changed) << r.after.str();
  // An output of the function keeps its node too.
  Var c = x - 1.0f;
  EXPECT_FALSE(test::run_pass(rematerialize, {x}, {c, c * 2.0f, c * 3.0f}).changed);
  EXPECT_EQ(count_class(r.after, "Dot"), 1);
}

}  // namespace
}  // namespace tgc
