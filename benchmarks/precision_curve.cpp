// Issue 29's loss-curve check: the MLP of examples/mlp.tg (784-512 relu-10, softmax
// cross-entropy, batch 256, SGD 0.1, its kind of data: uniform inputs, random labels,
// RandomState(19), weights N(0, 0.05)) trained from the same
// start in float32, under mixed_precision=bfloat16 and under mixed_precision=float16 (dynamic
// loss scaling), each with its own parameters, on the device TGC_FLAGS names. Prints the loss
// at a few steps and, at the last, each run's difference from float32's.
//   precision_curve [--steps 1000]       (TGC_FLAGS=device=cuda on a GPU)
#include <tgc/tgc.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_flags.h"

using namespace tgc;

namespace {

std::vector<double> train(const std::string& mode, int64_t steps) {
  RandomState rng(19);
  auto f32 = [](const Tensor& t) { return t.astype(DType::Float32); };
  const int64_t n = 256;
  Tensor xs = f32(rng.rand({n, 784}));
  Tensor labels = rng.randint(0, 10, {n});
  Tensor onehot = Tensor::zeros(DType::Float32, {n, 10});
  for (int64_t i = 0; i < n; ++i) onehot.data<float>()[i * 10 + labels.data<int64_t>()[i]] = 1;
  Shared x = shared(xs, "x"), y1h = shared(onehot, "y1h");
  Shared w1 = shared(f32(rng.normal(0, 0.05, {784, 512})), "w1"), b1 = shared(Tensor::zeros(DType::Float32, {512}), "b1");
  Shared w2 = shared(f32(rng.normal(0, 0.05, {512, 10})), "w2"), b2 = shared(Tensor::zeros(DType::Float32, {10}), "b2");
  Var h = maximum(dot(x, w1) + b1, 0.0);
  Var logits = dot(h, w2) + b2;
  Var loss = -mean(sum(y1h * log_softmax(logits), 1));
  std::vector<Var> g = grad(loss, {w1, b1, w2, b2});
  const double lr = 0.1;
  FunctionOptions options{.name = "train " + mode};
  if (mode != "float32") options.config["mixed_precision"] = mode;
  Function step = function({}, {loss}, {{w1, w1 - lr * g[0]}, {b1, b1 - lr * g[1]}, {w2, w2 - lr * g[2]}, {b2, b2 - lr * g[3]}},
                           options);
  std::vector<double> losses;
  for (int64_t i = 0; i < steps; ++i) losses.push_back(step()[0].item<double>());
  return losses;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t steps = tgc::bench::flag(argc, argv, "--steps", 1000);
  const std::vector<std::string> modes = {"float32", "bfloat16", "float16"};
  std::vector<std::vector<double>> curves;
  for (const std::string& m : modes) curves.push_back(train(m, steps));
  std::printf("device %s, %lld steps\n%-10s", global_config().device.c_str(), static_cast<long long>(steps), "step");
  for (const std::string& m : modes) std::printf(" %12s", m.c_str());
  std::printf("\n");
  for (int64_t s : {int64_t{1}, int64_t{10}, int64_t{100}, steps / 2, steps}) {
    if (s < 1 || s > steps) continue;
    std::printf("%-10lld", static_cast<long long>(s));
    for (const auto& c : curves) std::printf(" %12.6f", c[static_cast<size_t>(s - 1)]);
    std::printf("\n");
  }
  for (size_t k = 1; k < modes.size(); ++k) {
    const double a = curves[k].back(), b = curves[0].back();
    std::printf("%s: final loss %.6f vs float32 %.6f: %.2f%% apart (goal: within 1%%)\n", modes[k].c_str(), a, b,
                100 * std::abs(a - b) / b);
  }
  return 0;
}
