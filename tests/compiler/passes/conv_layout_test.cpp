// conv_layout: where NHWC wins (the host's oneDNN, CUDA with TF32 or half), a small CNN's
// training step — conv, batch norm, relu, conv, global average, their gradients, the SGD
// update — runs NHWC convolutions with transposes only where values enter or leave (the input,
// the weights, the weights' gradients), and its values are those of the graph as built (the
// reference evaluator on both); elsewhere (CUDA float32 without TF32, OpenCL) nothing changes.
#include "compiler/passes/conv_layout.h"

#include <gtest/gtest.h>

#include <set>

#include <tgc/grad.h>
#include <tgc/tgc.h>

#include "canon_test_util.h"
#include "ops/conv/conv2d.h"
#include "ops/conv/dnnl_conv.h"
#include "ops/shape/dimshuffle.h"

namespace tgc {
namespace {

struct Net {
  std::vector<Var> inputs, outputs;
};

// x, w1, w2, gamma, beta -> the loss, the three parameters' gradients and an SGD step of w1.
Net small_cnn() {
  Var x = tensor4("x", DType::Float32), w1 = tensor4("w1", DType::Float32), w2 = tensor4("w2", DType::Float32);
  Var gamma = vector("gamma", DType::Float32), beta = vector("beta", DType::Float32);
  BatchNormTrain bn = batch_normalization_train(conv2d(x, w1, Conv2dOptions{.padding = ConvPadding(1)}), gamma, beta,
                                                shared(Tensor::full(DType::Float32, Shape{3}, 0.0)),
                                                shared(Tensor::full(DType::Float32, Shape{3}, 1.0)));
  Var h = maximum(bn.y, 0.0);
  Var y = conv2d(h, w2, Conv2dOptions{.padding = ConvPadding(1)});
  Var loss = mean(sum(sqr(mean(y, {2, 3})), 1));
  std::vector<Var> g = grad(loss, {w1, w2, gamma});
  return {{x, w1, w2, gamma, beta}, {loss, g[0], g[1], g[2], w1 - g[0] * 0.1}};
}

PassContext context(DeviceKind device, bool tf32) {
  PassContext ctx = make_pass_context(global_config());
  ctx.placement.device = device;
  ctx.config.cuda_tf32 = tf32;
  return ctx;
}

struct Census {
  int nchw = 0, nhwc = 0;  // conv ops by layout
  // Distinct transposed values (a value and a permutation of its four axes; the pass makes one
  // node per reader, merge makes them one), and those of a graph input (x, the weights).
  std::set<std::pair<const Variable*, std::vector<int>>> transposes, of_inputs;
  std::vector<std::string> others;  // what the other transposes read
};
Census census(const Graph& g) {
  Census c;
  for (Node* n : g.toposort()) {
    if (const auto* conv = dynamic_cast<const ConvOpBase*>(&n->op()))
      (conv->params().layout == ConvLayout::NCHW ? c.nchw : c.nhwc) += 1;
    const auto* ds = dynamic_cast<const DimShuffle*>(&n->op());
    const VarPtr& in = n->inputs()[0];
    const std::vector<int64_t>& dims = in->type().shape;
    const bool small = std::count(dims.begin(), dims.end(), int64_t{1}) >= 2;  // an (N, C, 1, 1) gradient: a free view
    if (ds && !small && (ds->pattern() == std::vector<int>{0, 2, 3, 1} || ds->pattern() == std::vector<int>{0, 3, 1, 2})) {
      const auto key = std::make_pair(in.get(), ds->pattern());
      c.transposes.insert(key);
      if (std::find(g.inputs().begin(), g.inputs().end(), in) != g.inputs().end()) c.of_inputs.insert(key);
      else c.others.push_back(in->owner() ? in->owner()->op().name() : "?");
    }
  }
  return c;
}

TEST(ConvLayout, CudaWithTf32RunsTheStepInNhwcWithTransposesOnlyAtTheBoundary) {
  const Net net = small_cnn();
  test::PassRun r = test::run_pass(conv_layout, net.inputs, net.outputs, context(DeviceKind::Cuda, true));
  ASSERT_TRUE(r.changed);
  const Census c = census(r.after);
  EXPECT_EQ(c.nchw, 0);
  EXPECT_GT(c.nhwc, 4);  // two convs, their input and weights gradients
  // In: x and the two weights. Out: the two weights' gradients as the outputs read them, and
  // w1's scaled by the learning rate as its update reads it (both OIHW). No activation between
  // the convolutions is transposed.
  EXPECT_EQ(c.of_inputs.size(), 3u);
  EXPECT_EQ(c.transposes.size(), 6u) << ::testing::PrintToString(c.others);
  test::expect_same_results(r, 1e-5);
}

TEST(ConvLayout, OnTheHostWithOneDnnTheStepRunsInNhwcAndMatchesTheReference) {
  if (!dnnl_conv_enabled(DType::Float32)) GTEST_SKIP() << "needs oneDNN's convolutions (libdnnl, TGC_DNNL_CONV not 0)";
  const Net net = small_cnn();
  test::PassRun r = test::run_pass(conv_layout, net.inputs, net.outputs, context(DeviceKind::Host, false));
  EXPECT_EQ(census(r.after).nchw, 0);
  // Compiled for the cpu (the whole pipeline, oneDNN's NHWC kernels) against the graph as built.
  RandomState rng(5);
  const std::vector<Tensor> args{rng.normal(0, 1, {4, 3, 6, 6}).astype(DType::Float32),
                                 rng.normal(0, 0.5, {3, 3, 3, 3}).astype(DType::Float32),
                                 rng.normal(0, 0.5, {3, 3, 3, 3}).astype(DType::Float32),
                                 rng.normal(1, 0.1, {3}).astype(DType::Float32), rng.normal(0, 0.1, {3}).astype(DType::Float32)};
  const std::vector<Tensor> got = function(net.inputs, net.outputs)(args);
  std::vector<std::pair<Var, Tensor>> bound;
  for (size_t i = 0; i < args.size(); ++i) bound.push_back({net.inputs[i], args[i]});
  test::GraphEval eval(bound);
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_TRUE(tensors_allclose(got[i], eval(net.outputs[i]), 1e-4, 1e-5)) << "output " << i;
}

TEST(ConvLayout, CudaFloat32WithoutTf32AndOpenCLKeepTheProgramsLayout) {
  const Net net = small_cnn();
  for (const PassContext& ctx : {context(DeviceKind::Cuda, false), context(DeviceKind::OpenCL, true)}) {
    test::PassRun r = test::run_pass(conv_layout, net.inputs, net.outputs, ctx);
    EXPECT_FALSE(r.changed);
    EXPECT_EQ(census(r.after).nhwc, 0);
  }
}

}  // namespace
}  // namespace tgc
