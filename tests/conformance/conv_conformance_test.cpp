// Convolutional layers on every backend: conv2d over a grid of strides, paddings, dilations,
// groups and both layouts, its gradients (the Conv2dGradInput / Conv2dGradWeights ops),
// conv_transpose2d, max and average pooling with their gradient, and batch normalization
// (train form with its statistics, inference form). Shapes are tiny: one or two kernels per
// case on OpenCL (PoCL builds are slow). On CUDA the conv and pool ops run through cuDNN, on
// OpenCL a one-group NCHW conv2d through CLBlast's Convgemm, elsewhere through tgc's direct
// kernels (docs/conv.md#opencl); batch normalization runs on the device.
#include "conformance/conformance.h"

namespace tgc::conformance {
namespace {

std::vector<Case> conv_cases() {
  RandomState rng(24);
  std::vector<Case> out;
  for (DType t : {DType::Float64, DType::Float32}) {
    const std::string name(dtype_name(t));
    Var x = tensor("x", t, {2, 4, 5, 5}), w = tensor("w", t, {4, 2, 3, 2}), xh = tensor("xh", t, {2, 5, 5, 4}),
        wh = tensor("wh", t, {4, 3, 2, 2}), w1 = tensor("w1", t, {3, 4, 2, 3});
    // One group in NCHW, the same padding on both sides: on OpenCL CLBlast's Convgemm, and
    // for the gradients its Im2col / Col2im and a product per image.
    Conv2dOptions plain{ConvLayout::NCHW, {1, 2}, ConvPadding(1), {2, 1}, 1};
    // The same with padding that differs between the sides: the direct kernel there.
    Conv2dOptions lopsided{ConvLayout::NCHW, {1, 1}, ConvPadding(1, 0, 0, 1), {1, 1}, 1};
    Conv2dOptions strided{ConvLayout::NCHW, {2, 1}, ConvPadding(1, 0, 2, 1), {1, 2}, 2};
    Conv2dOptions same{ConvLayout::NHWC, {1, 1}, ConvPadding::same(), {1, 1}, 2};
    Conv2dOptions fused{ConvLayout::NHWC, {1, 2}, ConvPadding(1), {1, 1}, 2};  // its own node (no CSE with yh)
    Var y = conv2d(x, w, strided), yh = conv2d(xh, wh, same), b = vector("b", t);
    Var yp = conv2d(x, w1, plain);
    Var cost = sum(y * y) + sum(yh * yh);
    std::vector<Var> g = grad(cost, {x, w, xh, wh});
    std::vector<Var> gp = grad(sum(yp * yp), {x, w1});
    Conv2dOptions up;
    up.stride = {2, 2};
    up.padding = ConvPadding(1);
    out.push_back({.name = "conv2d grid and gradients " + name,
                   .inputs = {x, w, xh, wh, b, w1},
                   .outputs = {y.as("conv2d strided dilated grouped"), yh.as("conv2d NHWC same"), g[0], g[1], g[2],
                               g[3], conv_transpose2d(x, w, up, {1, 0}).as("conv_transpose2d"),
                               maximum(conv2d(xh, wh, fused) + b, 0.0).as("relu(conv2d + bias): FusedConv2d"),
                               yp.as("conv2d NCHW one group"),
                               conv2d(x, w1, lopsided).as("conv2d NCHW one group, uneven padding")},
                   .arg_sets = {{random_values(rng, t, {2, 4, 5, 5}), random_values(rng, t, {4, 2, 3, 2}),
                                 random_values(rng, t, {2, 5, 5, 4}), random_values(rng, t, {4, 3, 2, 2}),
                                 random_values(rng, t, {4}), random_values(rng, t, {3, 4, 2, 3})}},
                   .tolerance = kConvolution});
    // Its gradients through CLBlast's Im2col and Col2im on OpenCL: in float32 only (each dtype
    // builds CLBlast's kernels on PoCL anew: seconds of CI).
    if (t == DType::Float32)
      out.back().outputs.insert(out.back().outputs.end(),
                                {gp[0].as("one group's input gradient"), gp[1].as("one group's weights' gradient")});
  }
  // The attribute grid: each row a convolution and both its gradients, float32. Both sides run
  // the ops' perform (oneDNN for float32), so this checks each backend's handling of the grid
  // (placement, transfers, the gradients' surrounding kernels); oneDNN against the reference
  // loops is tests/ops/conv/dnnl_conv_test.cpp.
  struct Row {
    ConvLayout layout;
    std::array<int64_t, 2> stride, dilation;
    ConvPadding pad;
    int64_t groups;
  };
  const Row grid[] = {{ConvLayout::NCHW, {1, 1}, {1, 1}, ConvPadding(0), 1},
                      {ConvLayout::NCHW, {2, 2}, {1, 1}, ConvPadding(1), 4},
                      {ConvLayout::NHWC, {1, 2}, {2, 1}, ConvPadding(2, 0, 1, 1), 1},
                      {ConvLayout::NHWC, {1, 1}, {1, 2}, ConvPadding::same(), 2}};
  std::vector<Var> inputs, outputs;
  std::vector<Tensor> args;
  int row = 0;
  for (const Row& r : grid) {
    const bool nchw = r.layout == ConvLayout::NCHW;
    const Shape xs = nchw ? Shape{2, 4, 7, 6} : Shape{2, 7, 6, 4};
    const Shape ws = nchw ? Shape{4, 4 / r.groups, 3, 2} : Shape{4, 3, 2, 4 / r.groups};
    Var x = tensor("x" + std::to_string(row), DType::Float32, xs), w = tensor("w" + std::to_string(row), DType::Float32, ws);
    Var y = conv2d(x, w, {r.layout, r.stride, r.pad, r.dilation, r.groups});
    std::vector<Var> g = grad(sum(y * y), {x, w});
    inputs.insert(inputs.end(), {x, w});
    outputs.insert(outputs.end(), {y, g[0], g[1]});
    args.push_back(random_values(rng, DType::Float32, xs));
    args.push_back(random_values(rng, DType::Float32, ws));
    ++row;
  }
  out.push_back({.name = "conv2d attribute grid float32",
                 .inputs = inputs,
                 .outputs = outputs,
                 .arg_sets = {args},
                 .tolerance = kConvolution});
  return out;
}

std::vector<Case> pool_cases() {
  RandomState rng(25);
  std::vector<Case> out;
  Var x = tensor("x", DType::Float32, {2, 3, 5, 6});
  Pool2dOptions o;
  o.stride = std::array<int64_t, 2>{2, 2};
  o.padding = {1, 1};
  o.ceil_mode = true;
  Pool2dOptions ex = o;
  ex.count_include_pad = false;
  ex.layout = ConvLayout::NHWC;
  Var mx = max_pool2d(x, {3, 2}, o), av = avg_pool2d(x, {3, 3}, ex);
  Var gx = grad(sum(mx * mx) + sum(av * av), x);
  out.push_back({.name = "max and avg pooling with gradients",
                 .inputs = {x},
                 .outputs = {mx.as("max_pool2d ceil"), av.as("avg_pool2d NHWC exclude pad"), gx},
                 .arg_sets = {{random_values(rng, DType::Float32, {2, 3, 5, 6})}},
                 .tolerance = kConvolution});
  return out;
}

// The training form's gradients (BatchNormGrad, written out as one reduction kernel and one
// elementwise kernel by the optimizer) in both layouts, with a loss that also reads the batch
// statistics (their own gradient terms) and a relu before it (the mask fused into dy).
Case batchnorm_gradient_case() {
  RandomState rng(27);
  std::vector<Var> inputs, outputs;
  std::vector<Tensor> args;
  for (ConvLayout layout : {ConvLayout::NCHW, ConvLayout::NHWC}) {
    const bool nchw = layout == ConvLayout::NCHW;
    const Shape xs = nchw ? Shape{4, 3, 5, 2} : Shape{4, 5, 2, 3};
    const std::string l = nchw ? "nchw" : "nhwc";
    Var x = tensor("x_" + l, DType::Float32, xs), gamma = vector("gamma_" + l, DType::Float32),
        beta = vector("beta_" + l, DType::Float32);
    Shared rm = shared(Tensor::zeros(DType::Float32, {3}), "running_mean_" + l),
           rv = shared(Tensor::full(DType::Float32, {3}, 1.0), "running_var_" + l);
    BatchNormTrain bn = batch_normalization_train(x, gamma, beta, rm, rv, {.layout = layout});
    Var loss = sum(square(maximum(bn.y, 0.0)) * 0.5) + sum(bn.mean * 2.0) + sum(square(bn.var));
    std::vector<Var> g = grad(loss, {x, gamma, beta});
    inputs.insert(inputs.end(), {x, gamma, beta});
    outputs.insert(outputs.end(), {g[0].as("dx " + l), g[1].as("dgamma " + l), g[2].as("dbeta " + l)});
    args.push_back(random_values(rng, DType::Float32, xs));
    args.push_back(random_values(rng, DType::Float32, {3}));
    args.push_back(random_values(rng, DType::Float32, {3}));
  }
  return {.name = "batch normalization gradients, both layouts",
          .inputs = inputs,
          .outputs = outputs,
          .arg_sets = {args},
          .tolerance = kRewritten};
}

std::vector<Case> batchnorm_cases() {
  RandomState rng(26);
  Var x = tensor("x", DType::Float32, {4, 3, 2, 2}), gamma = vector("gamma", DType::Float32),
      beta = vector("beta", DType::Float32);
  Shared rm = shared(Tensor::zeros(DType::Float32, {3}), "running_mean"),
         rv = shared(Tensor::full(DType::Float32, {3}, 1.0), "running_var");
  BatchNormTrain bn = batch_normalization_train(x, gamma, beta, rm, rv);
  Var test = batch_normalization_test(x, gamma, beta, rm, rv);
  return {{.name = "batch normalization train and inference",
           .inputs = {x, gamma, beta},
           .outputs = {bn.y.as("train y"), bn.mean.as("batch mean"), bn.var.as("batch var"), test.as("inference y")},
           .arg_sets = {{random_values(rng, DType::Float32, {4, 3, 2, 2}), random_values(rng, DType::Float32, {3}),
                         random_values(rng, DType::Float32, {3})}},
           .tolerance = kRewritten},
          batchnorm_gradient_case()};
}

[[maybe_unused]] const bool kConv = register_family("conv", &conv_cases);
[[maybe_unused]] const bool kPool = register_family("pool", &pool_cases);
[[maybe_unused]] const bool kBatchNorm = register_family("batchnorm", &batchnorm_cases);

TEST_P(Conformance, Conv2dAndItsGradients) { expect_all_conform(&conv_cases); }
TEST_P(Conformance, Pooling) { expect_all_conform(&pool_cases); }
TEST_P(Conformance, BatchNormalization) { expect_all_conform(&batchnorm_cases); }

}  // namespace
}  // namespace tgc::conformance
