// Issue 23's RNN measurement: one training step of a tanh RNN written with scan (hidden 512,
// sequence 100, batch 64, input 512): the forward loop, backpropagation through time and the
// SGD update of Wx, Wh, b, all in one compiled function with the data kept on the device.
// Prints one JSON line: the median step time over batches of steps (device work included).
// benchmarks/rnn/peers.py times JAX's lax.scan version and PyTorch's cell loop in the same
// command (docs/performance.md, "Loops").
//   rnn_bench [--hidden 512] [--seq 100] [--batch 64] [--steps 50] [--reps 5]
// Run with TGC_FLAGS=device=cuda for the GPU.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
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
  const int64_t H = flag(argc, argv, "--hidden", 512), T = flag(argc, argv, "--seq", 100),
                B = flag(argc, argv, "--batch", 64), steps = flag(argc, argv, "--steps", 50),
                reps = flag(argc, argv, "--reps", 5);
  const int64_t D = H;
  RandomState rng(0);
  auto f32 = [](const Tensor& t) { return t.astype(DType::Float32); };
  Shared x = shared(f32(rng.normal(0, 1, {T, B, D})), "x");
  Shared wx = shared(f32(rng.normal(0, 1.0 / std::sqrt(double(D)), {D, H})), "wx");
  Shared wh = shared(f32(rng.normal(0, 1.0 / std::sqrt(double(H)), {H, H})), "wh");
  Shared b = shared(Tensor::zeros(DType::Float32, {H}), "b");
  Var h0 = zeros({B, H}, DType::Float32);
  ScanResult r = scan([&](const std::vector<Var>& a) { return ScanStep{tanh(dot(a[0], wx) + dot(a[1], wh) + b)}; },
                      {x}, {OutputInfo(h0)}, {}, {.name = "rnn"});
  Var loss = mean(square(r[0]));
  std::vector<Var> g = grad(loss, {wx, wh, b});
  const double lr = 0.01;
  FunctionOptions o{.name = "rnn_step"};
  o.device_result = true;
  Function step = function({}, {loss}, {{wx, wx - lr * g[0]}, {wh, wh - lr * g[1]}, {b, b - lr * g[2]}}, o);
  const auto c0 = Clock::now();
  Tensor last = step()[0];
  last.sync();
  const double first_call = std::chrono::duration<double>(Clock::now() - c0).count();
  for (int i = 0; i < 5; ++i) last = step()[0];
  last.sync();
  std::vector<double> per_step;
  for (long long rep = 0; rep < reps; ++rep) {
    const auto t0 = Clock::now();
    for (long long i = 0; i < steps; ++i) last = step()[0];
    last.sync();
    per_step.push_back(std::chrono::duration<double>(Clock::now() - t0).count() / static_cast<double>(steps));
  }
  std::sort(per_step.begin(), per_step.end());
  fmt::print("{{\"bench\": \"rnn_step\", \"impl\": \"tgc\", \"device\": \"{}\", \"hidden\": {}, \"seq\": {}, \"batch\": {}, "
             "\"ms\": {:.3f}, \"min_ms\": {:.3f}, \"first_call_s\": {:.3f}, \"loss\": {:.6f}, \"cuda_graph\": \"{}\"}}\n",
             global_config().device, H, T, B, per_step[per_step.size() / 2] * 1e3, per_step.front() * 1e3, first_call,
             last.to_host().astype(DType::Float64).item<double>(), step.cuda_graph_status());
  if (!step.profile_report().empty()) fmt::print(stderr, "{}\n", step.profile_report());
  return 0;
}
