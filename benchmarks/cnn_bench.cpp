// Issue 24's first CPU measurement: one training step of a small CNN layer stack (conv 3x3
// 3->32 + bias + relu, 2x2 max pool, conv 3x3 32->64 + bias + relu, 2x2 max pool, dense to 10,
// softmax cross-entropy, SGD) on CIFAR-sized inputs, in one compiled function. Prints one JSON
// line: the median step time over batches of steps. The float32 convolutions and pooling run
// through oneDNN; TGC_DNNL_CONV=0 TGC_DNNL_POOL=0 times the reference loops instead. No peer
// runs beside it yet (PyTorch is not installed on the build machine; docs/conv.md).
//   cnn_bench [--batch 32] [--size 32] [--steps 5] [--reps 3] [--layout nchw|nhwc]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include <tgc/tgc.h>

#include "bench_flags.h"

namespace {

using Clock = std::chrono::steady_clock;
using tgc::bench::flag;

}  // namespace

int main(int argc, char** argv) {
  using namespace tgc;
  const int64_t B = flag(argc, argv, "--batch", 32), S = flag(argc, argv, "--size", 32),
                steps = flag(argc, argv, "--steps", 5), reps = flag(argc, argv, "--reps", 3);
  const bool last = tgc::bench::word_flag(argc, argv, "--layout", "nchw") == "nhwc";
  const ConvLayout layout = last ? ConvLayout::NHWC : ConvLayout::NCHW;
  RandomState rng(0);
  auto f32 = [](const Tensor& t) { return t.astype(DType::Float32); };
  auto act = [&](int64_t c, int64_t h) { return conv_act_shape(layout, B, c, h, h); };
  auto weights = [&](int64_t o, int64_t i) {
    return shared(f32(rng.normal(0, std::sqrt(2.0 / (9 * i)), conv_weight_shape(layout, o, i, 3, 3))));
  };
  Shared x = shared(f32(rng.normal(0, 1, act(3, S))), "x");
  Shared labels = shared(f32(rng.randint(0, 10, {B}).astype(DType::Float32)), "labels");
  Shared w1 = weights(32, 3), w2 = weights(64, 32);
  Shared b1 = shared(Tensor::zeros(DType::Float32, {32})), b2 = shared(Tensor::zeros(DType::Float32, {64}));
  Shared w3 = shared(f32(rng.normal(0, 0.01, {64 * (S / 4) * (S / 4), 10}))), b3 = shared(Tensor::zeros(DType::Float32, {10}));
  Conv2dOptions o;
  o.layout = layout;
  o.padding = ConvPadding::same();
  Pool2dOptions p;
  p.layout = layout;
  auto bias = [&](const Var& b) { return last ? Var(b) : dimshuffle(b, {-1, 0, -1, -1}); };
  Var h1 = max_pool2d(maximum(conv2d(x, w1, o) + bias(b1), 0.0), {2, 2}, p);
  Var h2 = max_pool2d(maximum(conv2d(h1, w2, o) + bias(b2), 0.0), {2, 2}, p);
  Var logits = dot(flatten(h2, 2), w3) + b3;
  Var onehot = cast(eq(dimshuffle(labels, {0, -1}), dimshuffle(arange(0, 10, 1, DType::Float32), {-1, 0})), DType::Float32);
  Var loss = -mean(sum(onehot * log_softmax(logits), 1));
  std::vector<Shared> params = {w1, b1, w2, b2, w3, b3};
  std::vector<Var> wrt(params.begin(), params.end());
  std::vector<Var> g = grad(loss, wrt);
  Updates updates;
  for (size_t i = 0; i < params.size(); ++i) updates.push_back({params[i], params[i] - 0.01 * g[i]});
  Function step = function({}, {loss}, updates, {.name = "cnn_step"});
  const auto c0 = Clock::now();
  step();
  const double first_call = std::chrono::duration<double>(Clock::now() - c0).count();
  std::vector<double> per_step;
  for (long long rep = 0; rep < reps; ++rep) {
    const auto t0 = Clock::now();
    for (long long s = 0; s < steps; ++s) step();
    per_step.push_back(std::chrono::duration<double>(Clock::now() - t0).count() / double(steps));
  }
  std::sort(per_step.begin(), per_step.end());
  fmt::print("{{\"bench\": \"cnn_step\", \"layout\": \"{}\", \"batch\": {}, \"size\": {}, \"first_call_s\": {:.4f}, "
             "\"step_ms\": {:.3f}, \"loss\": {:.4f}}}\n",
             last ? "nhwc" : "nchw", B, S, first_call, per_step[per_step.size() / 2] * 1e3,
             step()[0].item<double>());
  return 0;
}
