// Issue 21's measurements, run once per rank under a launcher (tgc launch -n N, mpirun -np N)
// or alone for the one-device baseline; rank 0 prints one JSON line per measurement.
//   distributed_bench allreduce [--mib 1024] [--iters 20]
//       tgc's all_reduce(sum) of a float32 tensor kept on the device (device_result): the
//       algorithm and bus bandwidth as nccl-tests define them (bus = alg * 2(n-1)/n).
//   distributed_bench mlp [--batch 8192] [--hidden 4096] [--steps 100] [--warmup 10]
//       data-parallel SGD steps of the 784-H-H-10 relu MLP, softmax cross-entropy, the global
//       batch split among the ranks and kept on the device in split shared variables; the
//       throughput in samples per second. Alone, the same step without data parallelism.
//       With --devices N (one process, not launched): the same step from one function over
//       cuda:0 .. cuda:N-1 (data_parallel.devices), the whole batch in the user's split shared
//       variables.
//   distributed_bench check [--batch 64] [--hidden 256] [--steps 3]
//       trains the MLP as one rank of the launch and alone on the whole batch (float32) and
//       prints the largest parameter difference: the launch trains the same parameters.
// Run with TGC_FLAGS=device=cuda for the GPU (each rank takes its local rank's GPU).
#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include <tgc/tgc.h>

namespace tgc {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

long long flag(int argc, char** argv, const char* name, long long fallback) {
  for (int i = 2; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return std::stoll(argv[i + 1]);
  return fallback;
}

int allreduce(int argc, char** argv) {
  const long long mib = flag(argc, argv, "--mib", 1024), iters = flag(argc, argv, "--iters", 20);
  const int64_t count = mib * (1 << 20) / 4;
  Shared x = shared(Tensor::zeros(DType::Float32, {count}), "x");
  FunctionOptions o;
  o.device_result = true;
  Function f = function({}, {all_reduce(x)}, {}, o);
  for (int i = 0; i < 3; ++i) f()[0].sync();
  const auto t0 = Clock::now();
  Tensor last;
  for (long long i = 0; i < iters; ++i) last = f()[0];
  last.sync();
  const double per_call = seconds_since(t0) / static_cast<double>(iters);
  const double alg = static_cast<double>(count) * 4 / per_call / 1e9;
  const int n = world_size();
  if (rank() == 0)
    fmt::print("{{\"bench\": \"allreduce\", \"ranks\": {}, \"bytes\": {}, \"seconds\": {:.6f}, \"algbw_GBps\": {:.1f}, "
               "\"busbw_GBps\": {:.1f}, \"cuda_graph\": \"{}\"}}\n",
               n, count * 4, per_call, alg, alg * 2.0 * (n - 1) / n, f.cuda_graph_status());
  return 0;
}

struct Mlp {
  std::vector<Shared> params;
  Shared x, y;
  Var loss;
  Updates updates;

  // The rank's part of a global batch of `batch` rows (every rank draws its own rows).
  Mlp(int64_t batch, int64_t hidden, int part_of, int parts) {
    RandomState init(1);
    auto normal = [&](int64_t r, int64_t c) { return init.normal(0.0, 0.02, {r, c}).astype(DType::Float32); };
    params = {shared(normal(784, hidden), "w1"), shared(Tensor::zeros(DType::Float32, {hidden}), "b1"),
              shared(normal(hidden, hidden), "w2"), shared(Tensor::zeros(DType::Float32, {hidden}), "b2"),
              shared(normal(hidden, 10), "w3"), shared(Tensor::zeros(DType::Float32, {10}), "b3")};
    RandomState data(1000);
    const Tensor xs = data.rand({batch, 784}).astype(DType::Float32);
    const Tensor labels = data.randint(0, 10, {batch});
    Tensor ys = Tensor::zeros(DType::Float32, {batch, 10});
    for (int64_t i = 0; i < batch; ++i) ys.data<float>()[i * 10 + labels.data<int64_t>()[i]] = 1;
    const int64_t rows = batch / parts;
    x = shared(xs.view({rows, 784}, xs.strides(), part_of * rows * 784).copy(), "x");
    y = shared(ys.view({rows, 10}, ys.strides(), part_of * rows * 10).copy(), "y");
    Var h1 = maximum(dot(x, params[0]) + params[1], 0.0);
    Var h2 = maximum(dot(h1, params[2]) + params[3], 0.0);
    Var logits = dot(h2, params[4]) + params[5];
    loss = -mean(sum(y * log_softmax(logits), 1));
    std::vector<Var> wrt(params.begin(), params.end());
    std::vector<Var> g = grad(loss, wrt);
    for (size_t i = 0; i < params.size(); ++i) updates.emplace_back(params[i], params[i] - 0.01 * g[i]);
  }

  Function compile(bool parallel, const std::vector<std::string>& devices = {}) {
    FunctionOptions o;
    o.name = "mlp_step";
    o.device_result = true;
    if (parallel || !devices.empty()) o.data_parallel.split = {{x, 0}, {y, 0}};
    o.data_parallel.devices = devices;
    return function({}, {loss}, updates, o);
  }
};

int mlp(int argc, char** argv) {
  const long long batch = flag(argc, argv, "--batch", 8192), hidden = flag(argc, argv, "--hidden", 4096);
  const long long steps = flag(argc, argv, "--steps", 100), warmup = flag(argc, argv, "--warmup", 10);
  const long long n_devices = flag(argc, argv, "--devices", 0);
  std::vector<std::string> devices;
  for (long long d = 0; d < n_devices; ++d) devices.push_back("cuda:" + std::to_string(d));
  const bool parallel = world_size() > 1;
  Mlp m(batch, hidden, devices.empty() ? rank() : 0, devices.empty() ? world_size() : 1);
  Function f = m.compile(parallel, devices);
  const long long ranks = devices.empty() ? world_size() : n_devices;
  for (long long i = 0; i < warmup; ++i) f()[0].sync();
  const auto t0 = Clock::now();
  Tensor last;
  for (long long i = 0; i < steps; ++i) last = f()[0];
  last.sync();
  const double per_step = seconds_since(t0) / static_cast<double>(steps);
  if (rank() == 0)
    fmt::print("{{\"bench\": \"mlp\", \"ranks\": {}, \"form\": \"{}\", \"batch\": {}, \"hidden\": {}, \"step_ms\": {:.3f}, "
               "\"samples_per_s\": {:.0f}, \"loss\": {:.6f}, \"cuda_graph\": \"{}\"}}\n",
               ranks, devices.empty() ? "processes" : "devices", batch, hidden, per_step * 1e3, static_cast<double>(batch) / per_step,
               last.to_host().item<float>(), f.cuda_graph_status());
  return 0;
}

int check(int argc, char** argv) {
  const long long batch = flag(argc, argv, "--batch", 64), hidden = flag(argc, argv, "--hidden", 256);
  const long long steps = flag(argc, argv, "--steps", 3);
  Mlp ranked(batch, hidden, rank(), world_size()), alone(batch, hidden, 0, 1);
  Function f = ranked.compile(world_size() > 1), g = alone.compile(false);
  for (long long i = 0; i < steps; ++i) f(), g();
  double worst = 0;
  for (size_t i = 0; i < ranked.params.size(); ++i) {
    const Tensor a = ranked.params[i].get_value(), b = alone.params[i].get_value();
    for (int64_t k = 0; k < a.numel(); ++k)
      worst = std::max(worst, static_cast<double>(std::abs(a.data<float>()[k] - b.data<float>()[k])));
  }
  fmt::print("{{\"bench\": \"check\", \"rank\": {}, \"ranks\": {}, \"steps\": {}, \"max_param_diff\": {:.3g}}}\n", rank(),
             world_size(), steps, worst);
  return worst < 1e-5 ? 0 : 1;
}

}  // namespace
}  // namespace tgc

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  try {
    if (what == "allreduce") return tgc::allreduce(argc, argv);
    if (what == "mlp") return tgc::mlp(argc, argv);
    if (what == "check") return tgc::check(argc, argv);
  } catch (const tgc::Error& e) {
    fmt::print(stderr, "distributed_bench: {}\n", e.what());
    return 1;
  }
  fmt::print(stderr, "usage: distributed_bench allreduce|mlp|check [--flag value ...] (see the file's header)\n");
  return 2;
}
