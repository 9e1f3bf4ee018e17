// The convolution ops through cuDNN on a real GPU (label gpu) against the reference perform on
// the host: conv2d and both its gradients over a grid of layouts, strides, dilations, groups
// and paddings (symmetric, per side, "same" with an even kernel), in float32 and float64;
// conv_transpose2d with output padding; the FusedConv2d of a bias and relu; and a small CNN's
// training step recorded as a CUDA graph, bit for bit against node-by-node calls. Every function
// is compiled with assert_no_cpu_op=raise, so a conv node left on the host fails the test.
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "cuda_test_util.h"

namespace tgc {
namespace {

using cuda_test::expect_cuda_matches_cpu;
using cuda_test::on;
using cuda_test::uniform_signed;

const std::map<std::string, std::string> kRaise{{"assert_no_cpu_op", "raise"}};

double tol(DType dt) { return dt == DType::Float32 ? 1e-4 : 1e-10; }

struct Row {
  std::array<int64_t, 2> stride, dilation;
  ConvPadding pad;
  int64_t groups;
  std::array<int64_t, 2> kernel;
};

TEST(CudnnConv, ForwardAndBothGradientsOverTheAttributeGrid) {
  TGC_REQUIRE_CUDNN();
  const Row grid[] = {
      {{1, 1}, {1, 1}, ConvPadding(0), 1, {3, 3}},
      {{2, 2}, {1, 1}, ConvPadding(1), 2, {3, 3}},
      {{2, 1}, {1, 2}, ConvPadding(1, 0, 2, 1), 2, {3, 2}},  // padding per side: the thunk pads
      {{1, 2}, {2, 1}, ConvPadding(2, 0, 1, 1), 1, {3, 2}},
      {{1, 1}, {1, 1}, ConvPadding::same(), 4, {3, 2}},      // "same" with an even kernel; depthwise
      {{1, 1}, {1, 2}, ConvPadding::same(), 1, {3, 2}},
  };
  for (DType dt : {DType::Float32, DType::Float64})
    for (ConvLayout layout : {ConvLayout::NCHW, ConvLayout::NHWC})
      for (const Row& r : grid) {
        SCOPED_TRACE(std::string(dtype_name(dt)) + " " + layout_name(layout) + " groups " + std::to_string(r.groups) +
                     " stride " + std::to_string(r.stride[0]) + "," + std::to_string(r.stride[1]));
        const bool nchw = layout == ConvLayout::NCHW;
        const int64_t ci = 4 / r.groups;
        const Shape xs = nchw ? Shape{2, 4, 7, 6} : Shape{2, 7, 6, 4};
        const Shape ws = nchw ? Shape{4, ci, r.kernel[0], r.kernel[1]} : Shape{4, r.kernel[0], r.kernel[1], ci};
        Var x = tensor("x", dt, xs), w = tensor("w", dt, ws);
        Var y = conv2d(x, w, {layout, r.stride, r.pad, r.dilation, r.groups});
        std::vector<Var> g = grad(sum(y * y), {x, w});
        expect_cuda_matches_cpu({x, w}, {y, g[0], g[1]}, {uniform_signed(xs, dt, 1), uniform_signed(ws, dt, 2)}, tol(dt), tol(dt),
                                kRaise);
      }
}

TEST(CudnnConv, TransposedConvolutionWithOutputPadding) {
  TGC_REQUIRE_CUDNN();
  for (DType dt : {DType::Float32, DType::Float64}) {
    Var x = tensor("x", dt, {2, 4, 5, 5}), w = tensor("w", dt, {4, 2, 3, 2});
    Conv2dOptions up;
    up.stride = {2, 2};
    up.padding = ConvPadding(1);
    up.groups = 2;
    Var y = conv_transpose2d(x, w, up, {1, 0});
    std::vector<Var> g = grad(sum(y * y), {x, w});
    expect_cuda_matches_cpu({x, w}, {y, g[0], g[1]}, {uniform_signed({2, 4, 5, 5}, dt, 3), uniform_signed({4, 2, 3, 2}, dt, 4)},
                            tol(dt), tol(dt), kRaise);
  }
}

// The optimizer's FusedConv2d (bias, and relu): one cuDNN call where cuDNN has it, else the
// convolution with the bias and the relu applied in place after it.
TEST(CudnnConv, BiasAndReluEpilogue) {
  TGC_REQUIRE_CUDNN();
  for (DType dt : {DType::Float32, DType::Float64})
    for (ConvLayout layout : {ConvLayout::NCHW, ConvLayout::NHWC}) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + layout_name(layout));
      const bool nchw = layout == ConvLayout::NCHW;
      const Shape xs = nchw ? Shape{2, 3, 8, 8} : Shape{2, 8, 8, 3}, ws = nchw ? Shape{5, 3, 3, 3} : Shape{5, 3, 3, 3};
      Var x = tensor("x", dt, xs), w = tensor("w", dt, ws), b = vector("b", dt);
      Conv2dOptions o{layout, {1, 1}, ConvPadding(1), {1, 1}, 1};
      Var bias = nchw ? dimshuffle(b, {-1, 0, -1, -1}) : b;
      Var with_relu = maximum(conv2d(x, w, o) + bias, 0.0), plain = conv2d(x * 2.0, w, o) + bias;  // its own conv (no CSE)
      const std::vector<Tensor> args{uniform_signed(xs, dt, 5), uniform_signed(ws, dt, 6), uniform_signed({5}, dt, 7)};
      expect_cuda_matches_cpu({x, w, b}, {with_relu, plain}, args, tol(dt), tol(dt), kRaise);
      Function f = function({x, w, b}, {with_relu}, {}, on("cuda", kRaise));
      bool fused = false;
      for (const std::string& n : f.toposort()) fused = fused || n.find("FusedConv2d") != std::string::npos;
      EXPECT_TRUE(fused) << "conv_epilogue made no FusedConv2d";
    }
}

// A small CNN's training step (conv + bias + relu, max pool, conv, mean), its weights updated
// on the device: recorded as a CUDA graph from the second call, and the same bits as
// node-by-node calls (cuDNN's deterministic algorithms are chosen first).
TEST(CudnnConv, TrainingStepRecordedAsACudaGraphMatchesNodeByNode) {
  TGC_REQUIRE_CUDNN();
  auto build = [](const std::string& graphs) {
    RandomState rng(7);
    Shared x = shared(rng.uniform(-0.5, 0.5, {8, 3, 12, 12}).astype(DType::Float32), "x");
    Shared w1 = shared(rng.uniform(-0.1, 0.1, {8, 3, 3, 3}).astype(DType::Float32), "w1");
    Shared b1 = shared(Tensor::zeros(DType::Float32, {8}), "b1");
    Shared w2 = shared(rng.uniform(-0.1, 0.1, {4, 8, 3, 3}).astype(DType::Float32), "w2");
    Conv2dOptions same;
    same.padding = ConvPadding::same();
    Var h = max_pool2d(maximum(conv2d(x, w1, same) + dimshuffle(b1, {-1, 0, -1, -1}), 0.0), {2, 2});
    Var cost = mean(square(conv2d(h, w2)));
    std::vector<Var> g = grad(cost, {w1, b1, w2});
    FunctionOptions o = on("cuda", {{"cuda_graphs", graphs}, {"assert_no_cpu_op", "raise"}});
    Function f = function({}, {cost}, {{w1, w1 - 0.1 * g[0]}, {b1, b1 - 0.1 * g[1]}, {w2, w2 - 0.1 * g[2]}}, o);
    return std::make_tuple(std::move(f), w1, w2);
  };
  auto [fg, w1g, w2g] = build("auto");
  auto [fn, w1n, w2n] = build("off");
  for (int step = 0; step < 12; ++step) {
    const float a = fg()[0].to_vector<float>()[0], b = fn()[0].to_vector<float>()[0];
    ASSERT_EQ(a, b) << "cost at step " << step;
  }
  EXPECT_EQ(w1g.get_value().to_vector<float>(), w1n.get_value().to_vector<float>());
  EXPECT_EQ(w2g.get_value().to_vector<float>(), w2n.get_value().to_vector<float>());
  EXPECT_GT(fg.cuda_graph_replays(), 5) << fg.cuda_graph_status();
}

}  // namespace
}  // namespace tgc
