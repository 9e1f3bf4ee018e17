// The optimized graphs of the examples (issue 25): no work a careful engineer would remove is
// left — no where on a constant condition, no operation on constants only, no constant chain
// the exact rules fold, no subexpression a kernel computes twice, no size-1 constant as a
// kernel operand (it would be a transfer on a GPU), no Gemm whose beta is 0 over a zero C —
// and a second run of the optimizer changes nothing. Checked on the functions' graphs (Function::graph(), which tgc show prints),
// on device=cpu, and on the GPU graph with OpenCL where a device is present (the graph only:
// no kernel is built).
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backends/opencl/opencl_backend.h"
#include "cli/cli_runner.h"
#include "compiler/kernel/composite_op.h"
#include "compiler/passes/pipeline.h"
#include "frontend/lang/tg_program.h"
#include "ops/blas/gemm.h"
#include "ops/elemwise/elemwise.h"
#include "ops/transfer/transfer.h"

namespace tgc::test {
namespace {

bool power_of_two(double v) {
  int e = 0;
  return v != 0 && std::isfinite(v) && std::abs(std::frexp(v, &e)) == 0.5;
}

// Value i of kernel k as a scaling by a constant: the constant (and the scaled value), for
// mul by a constant, neg (-1) and division by a power of two (what constant_chain folds).
struct Scaling {
  double c;
  int x;
};
std::optional<Scaling> scaling(const Kernel& k, int i) {
  const KernelValue& v = k.values[i];
  if (v.kind != KernelValue::Kind::Op) return std::nullopt;
  auto constant = [&](int a) -> std::optional<double> {
    const KernelValue& c = k.values[a];
    if (c.kind != KernelValue::Kind::Constant || c.dtype != v.dtype) return std::nullopt;
    return c.constant;
  };
  if (v.op == ScalarOpKind::Neg) return Scaling{-1, v.args[0]};
  if (v.op == ScalarOpKind::Mul)
    for (int side : {0, 1})
      if (auto c = constant(v.args[side])) return Scaling{*c, v.args[1 - side]};
  if (v.op == ScalarOpKind::TrueDiv)
    if (auto c = constant(v.args[1]); c && power_of_two(*c)) return Scaling{1 / *c, v.args[0]};
  return std::nullopt;
}

// The values of kernel k that an earlier value already computes: the same load, constant
// (bit for bit) or operation on the same values, as "v7 = v3" — a Composite's body computes
// each subexpression once.
std::vector<std::string> repeated_values(const Kernel& k) {
  std::vector<std::string> found;
  for (size_t i = 0; i < k.values.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      const KernelValue &a = k.values[i], &b = k.values[j];
      const bool same_constant = a.kind != KernelValue::Kind::Constant ||
                                 (std::signbit(a.constant) == std::signbit(b.constant) &&
                                  (a.constant == b.constant || (std::isnan(a.constant) && std::isnan(b.constant))) &&
                                  a.int_constant == b.int_constant);
      if (a.kind == b.kind && a.dtype == b.dtype && a.input == b.input && a.op == b.op && a.reduce_op == b.reduce_op &&
          a.args == b.args && a.identity_when_empty == b.identity_when_empty && same_constant) {
        found.push_back("v" + std::to_string(i) + " = v" + std::to_string(j));
        break;
      }
    }
  return found;
}

// What is left that the constant rules remove, one line each ("" entries never).
std::vector<std::string> leftovers(const Graph& graph) {
  std::vector<std::string> found;
  for (Node* n : graph.toposort()) {
    const std::string where = n->describe();
    if (dynamic_cast<const ScaledMatmul*>(&n->op())) {
      const VarPtr& beta = n->inputs()[ScaledMatmul::kBeta];
      const VarPtr& c = n->inputs()[ScaledMatmul::kC];
      auto zero = [](const VarPtr& v) {
        const Variable* var = v.get();
        if (var->owner() && var->owner()->op().is_transfer()) var = var->owner()->inputs()[0].get();
        return var->kind() == Variable::Kind::Constant && var->constant_value().numel() == 1 &&
               var->constant_value().astype(DType::Float64).to_vector<double>()[0] == 0;
      };
      if (zero(beta) && zero(c)) found.push_back("a Gemm with beta 0 over a zero C: " + where);
    }
    if (n->op().is_transfer() && n->inputs()[0]->kind() == Variable::Kind::Constant &&
        n->inputs()[0]->type().ndim() > 0 && n->inputs()[0]->constant_value().numel() == 1)
      found.push_back("a size-1 constant transferred: " + where);
    const auto* comp = dynamic_cast<const Composite*>(&n->op());
    if (!comp) continue;
    for (const VarPtr& in : n->inputs())
      if (in->kind() == Variable::Kind::Constant && in->type().ndim() > 0 && in->constant_value().numel() == 1)
        found.push_back("a size-1 constant operand: " + where);
    const Kernel& k = comp->kernel();
    for (const std::string& d : repeated_values(k)) found.push_back("a repeated subexpression " + d + " in " + where);
    for (int i = 0; i < static_cast<int>(k.values.size()); ++i) {
      const KernelValue& v = k.values[i];
      if (v.kind != KernelValue::Kind::Op) continue;
      bool all_constant = !v.args.empty();
      for (int a : v.args) all_constant = all_constant && k.values[a].kind == KernelValue::Kind::Constant;
      if (all_constant) found.push_back("an operation on constants only in " + where);
      if (auto outer = scaling(k, i))
        if (auto inner = scaling(k, outer->x); inner && k.values[outer->x].dtype == v.dtype)
          if (power_of_two(outer->c) || power_of_two(inner->c))
            found.push_back("a constant chain the exact rules fold in " + where);
    }
  }
  return found;
}

// The wheres on a constant condition inside the graph's kernels (and outside them).
int constant_condition_wheres(const Graph& graph) {
  int n = 0;
  for (Node* node : graph.toposort()) {
    if (const auto* e = dynamic_cast<const Elemwise*>(&node->op()))
      n += e->kind() == ScalarOpKind::Where && node->inputs()[0]->kind() == Variable::Kind::Constant;
    const auto* comp = dynamic_cast<const Composite*>(&node->op());
    if (!comp) continue;
    const Kernel& k = comp->kernel();
    for (const KernelValue& v : k.values)
      n += v.kind == KernelValue::Kind::Op && v.op == ScalarOpKind::Where &&
           k.values[v.args[0]].kind == KernelValue::Kind::Constant;
  }
  return n;
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

lang::TgProgram load(const std::string& file, const std::string& device = "cpu") {
  return lang::load_file(file, {.config = {{"device", device}}});
}

// The pipeline run once more on the function's optimized graph, without fusion (after it
// the elementwise nodes are inside Composites, where no rule looks) and on its raw graph
// with everything: neither changes anything.
void expect_idempotent(const Function& f, const std::string& name) {
  for (const char* excluding : {"", "decompose_for_fusion:fuse_elemwise:inplace"}) {
    Config config;
    config.optimizer_excluding = excluding;
    const PassContext ctx = make_pass_context(config);
    Graph g = Graph::clone_of(f.raw_graph().inputs(), f.raw_graph().outputs());
    optimize(g, ctx);
    const std::string once = g.str();
    optimize(g, ctx);
    EXPECT_EQ(g.str(), once) << name << ", excluding '" << excluding << "'";
  }
}

// The examples' graphs where shared variables hold the data: their shapes are (?, ?) to
// the graph types, but function() compiles with the values' shapes (issue 25's shape facts),
// so mean's gradient (1/n broadcast to the cross-entropy's shape, a fill) folds away as in
// the static variants below: no where(True, ...) is left in logreg's or the MLP's step.
TEST(OptimizedExamples, NoFoldableWorkIsLeftOnTheCpu) {
  struct Case {
    const char* file;
    const char* fn;
  };
  for (const Case c : {Case{"check1.tg", "check1"}, Case{"logreg.tg", "train"}, Case{"logreg.tg", "predict"},
                       Case{"mlp.tg", "train"}}) {
    lang::TgProgram p = load(example(c.file));
    const Function& f = p.find(c.fn)->function;
    const std::string text = f.graph().str();
    EXPECT_EQ(leftovers(f.graph()), std::vector<std::string>{}) << c.file << "\n" << text;
    EXPECT_EQ(constant_condition_wheres(f.graph()), 0) << c.file << "\n" << text;
    EXPECT_EQ(count(text, "where(True"), 0) << c.file << "\n" << text;
    EXPECT_EQ(count(text, "Gemm{transB}("), 0) << "the MLP's backward product is a Dot\n" << text;
    expect_idempotent(f, std::string(c.file) + ":" + c.fn);
  }
}

// The repeated-subexpression check above finds a repeat (so the examples' check can fail):
// exp(v0) twice; 0.0 and -0.0 are two constants, not a repeat.
TEST(OptimizedExamples, TheRepeatCheckFindsARepeatedValue) {
  Kernel k;
  k.ndim = 1;
  k.inputs.push_back({DType::Float32, 1, {kUnknownDim}, false});
  auto value = [&](KernelValue v) {
    k.values.push_back(v);
    return static_cast<int>(k.values.size()) - 1;
  };
  const int x = value({.kind = KernelValue::Kind::Load, .dtype = DType::Float32, .input = 0});
  const int e1 = value({.kind = KernelValue::Kind::Op, .dtype = DType::Float32, .op = ScalarOpKind::Exp, .args = {x}});
  const int e2 = value({.kind = KernelValue::Kind::Op, .dtype = DType::Float32, .op = ScalarOpKind::Exp, .args = {x}});
  const int zero = value({.kind = KernelValue::Kind::Constant, .dtype = DType::Float32, .constant = 0.0});
  const int minus_zero = value({.kind = KernelValue::Kind::Constant, .dtype = DType::Float32, .constant = -0.0});
  for (int v : {e1, e2, zero, minus_zero}) k.outputs.push_back({v, DType::Float32});
  EXPECT_EQ(repeated_values(k), std::vector<std::string>{"v2 = v1"});
}

// The logistic regression's product and bias are one Gemv: stabilize rebuilt dot(x, w) + b
// for the sigmoid, and merge_stabilized makes it one node with one reader again (specialize
// folds a product only into its only reader).
TEST(OptimizedExamples, TheLogisticRegressionsBiasJoinsItsProduct) {
  lang::TgProgram p = load(example("logreg.tg"));
  const std::string text = p.find("train")->function.graph().str();
  EXPECT_TRUE(text.starts_with("t0 = Gemv(x, w, b, 1.0, 1.0)\n")) << text;
  EXPECT_EQ(count(text, "Dot("), 0) << text;
}

// The multi-output kernels of logreg's and the MLP's steps write an output into the buffer
// of the product that dies at them (each output into an input it reads): the fused training
// kernel's cross-entropy into dot(x, w) + b, the ReLU into the hidden layer's product.
TEST(OptimizedExamples, MultiOutputKernelsComputeInPlace) {
  for (const char* file : {"logreg.tg", "mlp.tg"}) {
    lang::TgProgram p = load(example(file));
    const Function& f = p.find("train")->function;
    int in_place = 0;
    for (Node* n : f.graph().toposort()) {
      const auto* c = dynamic_cast<const Composite*>(&n->op());
      if (!c || n->num_outputs() < 2) continue;
      for (int k = 0; k < n->num_outputs(); ++k) in_place += c->inplace_input(k) >= 0;
    }
    EXPECT_GE(in_place, 1) << file << "\n" << f.graph().str();
  }
}

// The examples with the data as inputs of static shapes (what shape facts make of the
// shared variables): every fill of the gradients folds away, no where is left at all.
constexpr const char* kLogRegStatic = R"(
x = tensor(shape=(400, 784), name="x")
y = tensor(shape=(400,), name="y")
w = tensor(shape=(784,), name="w")
b = tensor(shape=(), name="b")
p_1 = 1 / (1 + exp(-dot(x, w) - b))
prediction = p_1 > 0.5
xent = -y * log(p_1) - (1 - y) * log(1 - p_1)
cost = xent.mean() + 0.01 * (w ** 2).sum()
gw, gb = grad(cost, [w, b])
train = function([x, y, w, b], [prediction, xent, w - 0.01 * gw, b - 0.01 * gb], name="train")
)";

constexpr const char* kMlpStatic = R"(
x = tensor(shape=(256, 784), name="x")
y1h = tensor(shape=(256, 10), name="y1h")
w1 = tensor(shape=(784, 512), name="w1")
b1 = tensor(shape=(512,), name="b1")
w2 = tensor(shape=(512, 10), name="w2")
b2 = tensor(shape=(10,), name="b2")
h = maximum(dot(x, w1) + b1, 0)
logits = dot(h, w2) + b2
loss = -mean(sum(y1h * log_softmax(logits), axis=1))
gw1, gb1, gw2, gb2 = grad(loss, [w1, b1, w2, b2])
lr = 0.1
train = function([x, y1h, w1, b1, w2, b2], [loss, w1 - lr * gw1, b1 - lr * gb1, w2 - lr * gw2, b2 - lr * gb2], name="train")
)";

TEST(OptimizedExamples, WithStaticShapesNoWhereIsLeft) {
  for (const char* source : {kLogRegStatic, kMlpStatic}) {
    lang::TgProgram p = lang::load_source(source, "static.tg", {.config = {{"device", "cpu"}}});
    const Function& f = p.find("train")->function;
    const std::string text = f.graph().str();
    EXPECT_EQ(leftovers(f.graph()), std::vector<std::string>{}) << text;
    EXPECT_EQ(constant_condition_wheres(f.graph()), 0) << text;
    EXPECT_EQ(count(text, "where(True"), 0) << text;
    EXPECT_EQ(count(text, "Alloc"), 0) << "a fill made static stays a buffer\n" << text;
    EXPECT_EQ(count(text, "Gemm{transB}("), 0) << text;
    expect_idempotent(f, "static");
  }
}

// On a GPU the same graphs carry no constant as a transfer other than BLAS's 0-d alpha and
// beta, which the BLAS thunk reads on the host (backends/gpu/blas_thunk.cpp).
TEST(OptimizedExamples, NoFoldableWorkIsLeftOnTheDevice) {
  if (!opencl_available()) GTEST_SKIP() << "no OpenCL device in this build or machine";
  for (const char* file : {"logreg.tg", "mlp.tg"}) {
    lang::TgProgram p = load(example(file), "opencl");
    const Function& f = p.find("train")->function;
    EXPECT_EQ(leftovers(f.graph()), std::vector<std::string>{}) << file << "\n" << f.graph().str();
    std::set<const Node*> blas_scalars;
    for (Node* n : f.graph().toposort())
      if (dynamic_cast<const ScaledMatmul*>(&n->op()))
        for (int i : {ScaledMatmul::kAlpha, ScaledMatmul::kBeta})
          if (const Node* t = n->inputs()[i]->owner(); t && t->op().is_transfer()) blas_scalars.insert(t);
    for (Node* n : f.graph().toposort())
      if (n->op().is_transfer() && n->inputs()[0]->kind() == Variable::Kind::Constant)
        EXPECT_TRUE(blas_scalars.count(n)) << file << ": a constant transferred: " << n->describe() << "\n"
                                           << f.graph().str();
  }
}

}  // namespace
}  // namespace tgc::test
