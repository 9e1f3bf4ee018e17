// decompose_for_fusion: softmax, log_softmax and logsumexp become max/sum reductions with
// elementwise ops on a GPU device (and stay ops on the cpu), outer becomes a broadcast
// multiply everywhere, a small Gemv a reduction on a GPU; the results equal the ops' perform, infinities, NaN and empty rows
// included; after the whole pipeline a softmax cross-entropy and the MLP training step are
// a few kernels with no host node left.
#include "compiler/passes/decompose_for_fusion.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include <limits>

#include "canon_test_util.h"
#include "compiler/kernel/composite_op.h"
#include "compiler/passes/pipeline.h"
#include "compiler/passes/placement.h"
#include "ops/core/apply.h"
#include "ops/nn/log_softmax_grad.h"
#include "ops/blas/gemm.h"
#include "ops/norm/batch_norm.h"

namespace tgc {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr double kInf = std::numeric_limits<double>::infinity();

// What a CUDA backend implements (backends/cuda/cuda_backend.cpp, without a GPU): fused
// kernels, transfers, BLAS products, views and the shape-driven ops.
bool cuda_like(const Node& n) {
  const Op& op = n.op();
  const std::string c = op.op_class();
  return dynamic_cast<const Composite*>(&op) || op.is_transfer() || dynamic_cast<const ScaledMatmul*>(&op) ||
         c == "Dot" || c == "BatchedDot" || c == "Outer" || c == "DimShuffle" || c == "Reshape" ||
         c == "Flatten" || c == "ReduceCount" || c == "SumToLike" || c == "Subtensor";
}

// ... and a GPU backend's row kernels (backends/gpu/row_rules.h): the softmax family and
// log_softmax's gradient with float inputs of the result's dtype.
bool row_like(const Node& n) {
  const std::string c = n.op().op_class();
  if (c != "Softmax" && c != "LogSoftmax" && c != "LogSumExp" && c != "LogSoftmaxGrad") return cuda_like(n);
  for (const VarPtr& in : n.inputs())
    if (in->type().dtype != n.output_raw(0)->type().dtype) return false;
  return true;
}

PassContext context(DeviceKind device, bool row_kernels = false) {
  PassContext ctx = make_pass_context(global_config());
  ctx.config.optimizer = "fast_run";
  ctx.placement.device = device;
  if (device != DeviceKind::Host) ctx.placement.runs_on_device = row_kernels ? row_like : cuda_like;
  return ctx;
}

std::vector<std::string> classes(const Graph& g) {
  std::vector<std::string> out;
  for (Node* n : g.toposort()) out.push_back(n->op().op_class());
  return out;
}

// The pass alone, then each output of both graphs evaluated by perform on `args`.
void expect_same_values(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                        const std::vector<Tensor>& args, double rtol) {
  test::PassRun r = test::run_pass(decompose_for_fusion, inputs, outputs, context(DeviceKind::Cuda));
  ASSERT_TRUE(r.changed);
  for (const std::string& c : classes(r.after)) {
    EXPECT_NE(c, "Softmax");
    EXPECT_NE(c, "LogSoftmax");
    EXPECT_NE(c, "LogSumExp");
  }
  std::vector<std::pair<Var, Tensor>> before_in, after_in;
  for (size_t i = 0; i < args.size(); ++i) {
    before_in.push_back({Var(r.before.inputs()[i]), args[i]});
    after_in.push_back({Var(r.after.inputs()[i]), args[i]});
  }
  test::GraphEval before(before_in), after(after_in);
  for (size_t o = 0; o < r.before.outputs().size(); ++o) {
    Tensor want = before(Var(r.before.outputs()[o]));
    Tensor got = after(Var(r.after.outputs()[o]));
    EXPECT_TRUE(test::same_values(got, want, rtol, 1e-12)) << "output " << o << "\n" << got.str() << "\nexpected\n"
                                                            << want.str();
  }
}

// The whole pipeline for a GPU (fused kernels, transfers), evaluated on the host: each
// Composite through the Kernel IR interpreter, so Max{empty=identity} inside a kernel too.
void expect_same_values_fused(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                              const std::vector<Tensor>& args, double rtol) {
  Graph before = Graph::clone_of(to_ptrs(inputs), to_ptrs(outputs));
  Graph after = Graph::clone_of(before.inputs(), before.outputs());
  optimize(after, context(DeviceKind::Cuda));
  std::vector<std::pair<Var, Tensor>> before_in, after_in;
  for (size_t i = 0; i < args.size(); ++i) {
    before_in.push_back({Var(before.inputs()[i]), args[i]});
    after_in.push_back({Var(after.inputs()[i]), args[i]});
  }
  test::GraphEval want_eval(before_in), got_eval(after_in);
  for (size_t o = 0; o < before.outputs().size(); ++o) {
    Tensor want = want_eval(Var(before.outputs()[o]));
    Tensor got = got_eval(Var(after.outputs()[o]));
    EXPECT_TRUE(test::same_values(got, want, rtol, 1e-12)) << "output " << o << "\n" << got.str() << "\nexpected\n"
                                                            << want.str() << "\n" << after.str();
  }
}

TEST(DecomposeForFusion, SoftmaxFamilyBecomesReductionsOnAGpuOnly) {
  Var x = matrix("x", DType::Float32);
  test::PassRun gpu = test::run_pass(decompose_for_fusion, {x}, {softmax(x), log_softmax(x, 0), logsumexp(x, {1})},
                                     context(DeviceKind::Cuda));
  EXPECT_TRUE(gpu.changed);
  const std::vector<std::string> names = test::op_names(gpu.after);
  EXPECT_THAT(names, Contains("Max{axis=[1], keepdims=True, empty=identity}"));
  EXPECT_THAT(names, Contains("Max{axis=[0], keepdims=True, empty=identity}"));
  EXPECT_THAT(names, Contains("Sum{axis=[1], keepdims=True}"));
  EXPECT_THAT(names, Contains("Elemwise{where}"));  // the finite shift of log_softmax and logsumexp
  EXPECT_THAT(classes(gpu.after), Not(Contains("Softmax")));

  test::PassRun cpu = test::run_pass(decompose_for_fusion, {x}, {softmax(x), log_softmax(x, 0), logsumexp(x, {1})},
                                     context(DeviceKind::Host));
  EXPECT_FALSE(cpu.changed);
}

TEST(DecomposeForFusion, ValuesMatchPerformWithInfinitiesNaNAndEmptyRows) {
  for (DType t : {DType::Float64, DType::Float32}) {
    Var x = matrix("x", t), y = tensor3("y", t);
    const double nan = std::nan("");
    // Rows: ordinary, huge (1000: the shift matters), all -inf, a +inf, a NaN, -inf and finite.
    Tensor vx = Tensor::from_vector(std::vector<double>{1, 2, 3,        1000, -1000, 999,  -kInf, -kInf, -kInf,
                                                        1, kInf, 2,     nan, 1, 2,         -kInf, 0, 1},
                                    {6, 3})
                    .astype(t);
    RandomState rng(5);
    Tensor vy = rng.uniform(-4, 4, {2, 3, 4}).astype(t);
    const double rtol = t == DType::Float32 ? 2e-6 : 1e-13;
    std::vector<Var> outs{softmax(x), softmax(x, 0), log_softmax(x), log_softmax(x, 0), logsumexp(x, {1}),
                          logsumexp(x), logsumexp(y, {0, 2}, true), softmax(y, 1), log_softmax(y)};
    expect_same_values({x, y}, outs, {vx, vy}, rtol);
    // Empty rows: an empty result, and -inf for logsumexp (no "zero-size array" error).
    expect_same_values({x, y}, outs, {Tensor::zeros(t, {0, 3}), Tensor::zeros(t, {2, 0, 4})}, rtol);
    expect_same_values({x, y}, outs, {Tensor::zeros(t, {3, 0}), Tensor::zeros(t, {0, 3, 4})}, rtol);
    // And fused into kernels, run by the interpreter.
    expect_same_values_fused({x, y}, outs, {vx, vy}, rtol);
    expect_same_values_fused({x, y}, outs, {Tensor::zeros(t, {0, 3}), Tensor::zeros(t, {2, 0, 4})}, rtol);
    expect_same_values_fused({x, y}, outs, {Tensor::zeros(t, {3, 0}), Tensor::zeros(t, {0, 3, 4})}, rtol);
  }
}

TEST(DecomposeForFusion, IntegerInputsArePromotedAsTheOpsDo) {
  Var k = matrix("k", DType::Int32);
  RandomState rng(6);
  expect_same_values({k}, {softmax(k), log_softmax(k, 0), logsumexp(k, {1}, true)},
                     {rng.randint(-5, 5, {3, 4}, DType::Int32)}, 2e-6);
}

TEST(DecomposeForFusion, OuterBecomesABroadcastMultiplyOnEveryDevice) {
  Var a = vector("a", DType::Float32), b = vector("b", DType::Float32);
  Var i = vector("i", DType::Int8), j = vector("j", DType::Bool);
  for (DeviceKind d : {DeviceKind::Host, DeviceKind::Cuda}) {
    test::PassRun r = test::run_pass(decompose_for_fusion, {a, b, i, j}, {outer(a, b), outer(i, j)}, context(d));
    EXPECT_TRUE(r.changed);
    EXPECT_THAT(classes(r.after), Not(Contains("Outer")));
    test::expect_same_results(r, 0.0, 4);
  }
  // Other ranks are flattened by Outer itself: left alone.
  Var m = matrix("m", DType::Float32);
  EXPECT_FALSE(test::run_pass(decompose_for_fusion, {m, b}, {outer(m, b)}, context(DeviceKind::Cuda)).changed);
}

// The whole fast_run pipeline with a CUDA-like device: how many kernels, which host nodes.
struct Compiled {
  int composites = 0, reductions = 0;
  std::vector<std::string> rows;  // row-kernel ops (Softmax, LogSoftmaxGrad, ...)
  std::vector<std::string> host;  // non-transfer nodes left on the host
};

Compiled compile(const std::vector<Var>& inputs, const std::vector<Var>& outputs, bool row_kernels = false) {
  Graph g = Graph::clone_of(to_ptrs(inputs), to_ptrs(outputs));
  optimize(g, context(DeviceKind::Cuda, row_kernels));
  Compiled c;
  for (Node* n : g.toposort()) {
    if (const auto* k = dynamic_cast<const Composite*>(&n->op())) {
      ++c.composites;
      c.reductions += k->kernel().is_reduction();
    }
    const std::string cls = n->op().op_class();
    if (cls == "Softmax" || cls == "LogSoftmax" || cls == "LogSumExp" || cls == "LogSoftmaxGrad") c.rows.push_back(cls);
    if (n->placement() == DeviceKind::Host && !n->op().is_transfer()) c.host.push_back(n->op().name());
  }
  return c;
}

// Integer dot (BLAS has none) becomes a reduction of a broadcast product on a GPU, in every
// form, with the dot's values and dtypes; the cpu keeps the op.
TEST(DecomposeForFusion, IntegerDotIsAReductionOnAGpuOnly) {
  Var m = matrix("m", DType::Int8), n = matrix("n", DType::Int8);
  Var u = vector("u", DType::Int8), v = vector("v", DType::Int32);
  const std::vector<Var> forms = {dot(m, n), dot(m, u), dot(u, n), dot(u, v)};
  test::PassRun gpu = test::run_pass(decompose_for_fusion, {m, n, u, v}, forms, context(DeviceKind::Cuda));
  EXPECT_TRUE(gpu.changed);
  EXPECT_THAT(classes(gpu.after), Not(Contains("Dot")));
  test::expect_same_results(gpu, 0.0, 4);
  EXPECT_FALSE(test::run_pass(decompose_for_fusion, {m, n, u, v}, forms, context(DeviceKind::Host)).changed);
}

// Mixed dtypes meet on the device: dot, concatenate and inc_subtensor's value are cast to
// the result's dtype first, as perform() casts them; the values are the op's.
TEST(DecomposeForFusion, MixedDtypeOperandsAreCastOnAGpu) {
  Var x = matrix("x", DType::Float32), i = matrix("i", DType::Int32), w = vector("w", DType::Int32);
  const std::vector<Var> outs = {dot(x, i), concatenate({x, i}, 0), inc_subtensor(x[0], w)};
  test::PassRun gpu = test::run_pass(decompose_for_fusion, {x, i, w}, outs, context(DeviceKind::Cuda));
  EXPECT_TRUE(gpu.changed);
  for (Node* n : gpu.after.toposort()) {
    const std::string c = n->op().op_class();
    if (c != "Dot" && c != "Concatenate" && c != "IncSubtensor") continue;
    for (const VarPtr& in : n->inputs())
      if (c != "IncSubtensor" || in == n->inputs()[1]) EXPECT_EQ(in->type().dtype, DType::Float32) << n->describe();
  }
  test::expect_same_results(gpu, 1e-6, 4);
  EXPECT_FALSE(test::run_pass(decompose_for_fusion, {x, i, w}, outs, context(DeviceKind::Host)).changed);
}

// A Gemv, or a dot of a matrix and a vector, of a small matrix of known size becomes a
// reduction of a broadcast product on a GPU (a launch fewer once fusion joins it with its
// readers), plain and transposed, with alpha and beta folded where they are 1 and 0; the
// values are the product's. An A of unknown size, one
// past the limit (2^20 elements) and the cpu keep the Gemv.
TEST(DecomposeForFusion, SmallGemvIsAReductionOnAGpu) {
  Var a = tensor("a", DType::Float32, {40, 30}), x = tensor("x", DType::Float32, {30}),
      y = tensor("y", DType::Float32, {40});
  Var two = constant(2.0, DType::Float32), half = constant(0.5, DType::Float32);
  Var one = constant(1.0, DType::Float32), zero = constant(0.0, DType::Float32);
  auto gemv = [](bool trans, const Var& m, const Var& v, const Var& c, const Var& alpha, const Var& beta) {
    return Var(apply1(std::make_shared<Gemv>(trans), {m.ptr(), v.ptr(), c.ptr(), alpha.ptr(), beta.ptr()}));
  };
  // A (40, 30): x has 30 elements for the plain product, 40 for the transposed one.
  const std::vector<Var> plain = {gemv(false, a, x, y, two, half), gemv(false, a, x, y, one, zero), dot(a, x)};
  const std::vector<Var> trans = {gemv(true, a, y, x, two, half), gemv(true, a, y, x, one, one), dot(y, a)};
  for (const std::vector<Var>* forms : {&plain, &trans}) {
    const std::vector<Var>& f = *forms;
    test::PassRun gpu = test::run_pass(decompose_for_fusion, {a, x, y}, f, context(DeviceKind::Cuda));
    EXPECT_TRUE(gpu.changed);
    EXPECT_THAT(classes(gpu.after), Not(Contains("Gemv")));
    EXPECT_THAT(classes(gpu.after), Not(Contains("Dot")));
    EXPECT_THAT(classes(gpu.after), Contains("CAReduce"));
    test::expect_same_results(gpu, 1e-5);
    EXPECT_FALSE(test::run_pass(decompose_for_fusion, {a, x, y}, f, context(DeviceKind::Host)).changed);
  }
  Var unknown = matrix("m", DType::Float32), large = tensor("l", DType::Float32, {40, (1 << 20) / 40 + 1});
  EXPECT_FALSE(test::run_pass(decompose_for_fusion, {unknown, x, y}, {gemv(false, unknown, x, y, one, one)},
                              context(DeviceKind::Cuda))
                   .changed);
  Var v = vector("v", DType::Float32), c = vector("c", DType::Float32);
  EXPECT_FALSE(test::run_pass(decompose_for_fusion, {large, v, c}, {gemv(false, large, v, c, one, one)},
                              context(DeviceKind::Cuda))
                   .changed);
}

// The logistic regression's forward pass and loss on a GPU: sigmoid(dot(x, w) + b), its
// prediction and cross-entropy are one reduction kernel, not a BLAS gemv and a kernel after
// it; the weights' gradient (x.T @ g) is a second reduction kernel.
TEST(DecomposeForFusion, LogisticRegressionForwardIsOneKernelOnAGpu) {
  Var x = tensor("x", DType::Float32, {400, 784}), t = vector("t", DType::Float32);
  Var w = vector("w", DType::Float32), b = scalar("b", DType::Float32);
  Var p = sigmoid(dot(x, w) + b);
  Var xent = -t * log(p) - (1.0 - t) * log(1.0 - p);
  Compiled fwd = compile({x, t, w, b}, {p > 0.5, xent});
  EXPECT_TRUE(fwd.host.empty()) << ::testing::PrintToString(fwd.host);
  EXPECT_EQ(fwd.composites, 1);
  EXPECT_EQ(fwd.reductions, 1);
  Compiled step = compile({x, t, w, b}, {p > 0.5, xent, grad(mean(xent), w)});
  EXPECT_TRUE(step.host.empty()) << ::testing::PrintToString(step.host);
  EXPECT_EQ(step.reductions, 2);
}

TEST(DecomposeForFusion, SoftmaxCrossEntropyIsFewKernelsOnTheDevice) {
  Var z = matrix("z", DType::Float32), y = matrix("y", DType::Float32);
  Var loss = -mean(sum(y * log_softmax(z), 1));
  // Forward (decompose_for_fusion.h says why): the row max, the row sum of exp(z - s) with its
  // log, the rows' losses, the batch mean (t = z - s is computed again in the kernels that read
  // it: rematerialize, not written by a kernel of its own).
  Compiled fwd = compile({z, y}, {loss});
  EXPECT_TRUE(fwd.host.empty()) << ::testing::PrintToString(fwd.host);
  EXPECT_EQ(fwd.composites, 4);
  EXPECT_EQ(fwd.reductions, 4);
  // With the gradient: the log_softmax itself is written out (its exp is the gradient's
  // softmax), and -y/n, its row sums and g - exp(y) * sum(g) add their kernels (-1/n reaches
  // the product with y through the fills of mean's and sum's gradients: one kernel).
  Compiled both = compile({z, y}, {loss, grad(loss, z)});
  EXPECT_TRUE(both.host.empty()) << ::testing::PrintToString(both.host);
  EXPECT_EQ(both.composites, 8);
  EXPECT_EQ(both.reductions, 5);
}

TEST(DecomposeForFusion, SoftmaxCrossEntropyIsRowKernelsWhereTheDeviceHasThem) {
  Var z = matrix("z", DType::Float32), y = matrix("y", DType::Float32);
  Var loss = -mean(sum(y * log_softmax(z), 1));
  // Forward: the log_softmax row kernel, the rows' losses sum(y * ls, 1), the batch mean.
  Compiled fwd = compile({z, y}, {loss}, /*row_kernels=*/true);
  EXPECT_TRUE(fwd.host.empty()) << ::testing::PrintToString(fwd.host);
  EXPECT_EQ(fwd.rows, std::vector<std::string>{"LogSoftmax"});
  EXPECT_EQ(fwd.composites, 2);
  EXPECT_EQ(fwd.reductions, 2);
  // With the gradient, 6 kernels where the reductions made 9: the two row kernels (g -
  // exp(ls) * sum(g) is LogSoftmaxGrad's), y * ls, the rows' losses, the batch mean, and one
  // elementwise kernel for the losses' gradient with -1/n in it (a full reduction's gradient
  // is 0-d). y * ls is its own kernel because the gradient's where(True, g, y * ls) reads it
  // for its shape: without static shapes that where cannot be proven foldable.
  Compiled both = compile({z, y}, {loss, grad(loss, z)}, true);
  EXPECT_TRUE(both.host.empty()) << ::testing::PrintToString(both.host);
  EXPECT_EQ(both.rows, (std::vector<std::string>{"LogSoftmax", "LogSoftmaxGrad"}));
  EXPECT_EQ(both.composites, 4);
  EXPECT_EQ(both.reductions, 2);
}

// Where the device runs the row ops itself, the pass leaves them whole; what it cannot run
// (an integer input, which the op promotes) is still written out, and so is log_softmax's
// gradient wherever no row kernel runs it, the cpu included, with perform's values.
TEST(DecomposeForFusion, RowKernelsKeepTheOpsWholeAndTheRestIsWrittenOut) {
  Var x = matrix("x", DType::Float32), k = matrix("k", DType::Int32);
  const std::vector<Var> ops = {softmax(x), log_softmax(x, 0), logsumexp(x, {1})};
  EXPECT_FALSE(test::run_pass(decompose_for_fusion, {x}, ops, context(DeviceKind::Cuda, true)).changed);
  test::PassRun ints = test::run_pass(decompose_for_fusion, {k}, {softmax(k)}, context(DeviceKind::Cuda, true));
  EXPECT_TRUE(ints.changed);
  EXPECT_THAT(classes(ints.after), Not(Contains("Softmax")));

  Var g = matrix("g", DType::Float64), y = matrix("y", DType::Float64);
  Var lg(apply1(std::make_shared<LogSoftmaxGrad>(1), {g.ptr(), y.ptr()}));
  EXPECT_FALSE(test::run_pass(decompose_for_fusion, {g, y}, {lg}, context(DeviceKind::Cuda, true)).changed);
  for (DeviceKind d : {DeviceKind::Host, DeviceKind::Cuda}) {
    test::PassRun r = test::run_pass(decompose_for_fusion, {g, y}, {lg}, context(d));
    EXPECT_TRUE(r.changed);
    EXPECT_THAT(classes(r.after), Not(Contains("LogSoftmaxGrad")));
    test::expect_same_results(r, 1e-14, 4);
  }
}

// BatchNormTraining (batch_norm_formula.h) reads x in two kernels: one reduction of both
// statistics' sums, one elementwise kernel of y; and a third, tiny, gathers each channel's first
// element (the sums' shift). The two-pass formula reads x three times.
TEST(DecomposeForFusion, BatchNormTrainingReadsXInTwoKernels) {
  for (int channel_axis : {1, 3}) {
    Var x = tensor4("x", DType::Float32), gamma = vector("gamma", DType::Float32), beta = vector("beta", DType::Float32);
    std::vector<VarPtr> bn =
        apply(std::make_shared<BatchNormTraining>(channel_axis, 1e-5), {x.ptr(), gamma.ptr(), beta.ptr()});
    Compiled c = compile({x, gamma, beta}, {Var(bn[0]), Var(bn[1]), Var(bn[2])});
    EXPECT_TRUE(c.host.empty()) << ::testing::PrintToString(c.host);
    EXPECT_EQ(c.composites, 3) << channel_axis;
    EXPECT_EQ(c.reductions, 2) << channel_axis;
  }
}

TEST(DecomposeForFusion, TheMlpTrainingStepLeavesNoNodeOnTheHost) {
  RandomState rng(7);
  auto value = [&](Shape s) { return shared(rng.uniform(-1, 1, s).astype(DType::Float32)); };
  Shared x = value({8, 12}), y1h = value({8, 10}), w1 = value({12, 16}), b1 = value({16}), w2 = value({16, 10}),
         b2 = value({10});
  Var h = maximum(dot(x, w1) + b1, 0.0);
  Var logits = dot(h, w2) + b2;
  Var loss = -mean(sum(y1h * log_softmax(logits), 1));
  std::vector<Var> g = grad(loss, {w1, b1, w2, b2});
  std::vector<Var> outs{loss, logits};
  for (size_t k = 0; k < g.size(); ++k) outs.push_back(g[k]);
  for (bool row_kernels : {false, true}) {
    Compiled c = compile({}, outs, row_kernels);
    EXPECT_TRUE(c.host.empty()) << ::testing::PrintToString(c.host);
  }
}

}  // namespace
}  // namespace tgc
